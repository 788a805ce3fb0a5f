package io.ringtail.benchmarks.toolkit;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The report programs' command lines, read with picocli into an options object annotated with its
 * flags: {@code --help} (from picocli's standard help mixin, less its {@code --version}) prints the
 * usage and exits 0; a bad flag or value prints what is wrong and the usage, and exits 2.
 */
public final class Cli {
  private Cli() {}

  /** Fills {@code options} from {@code args} and returns it (or exits, as above). */
  public static <T> T parse(T options, String... args) {
    CommandLine cli = new CommandLine(options);
    // The standard help mixin brings --version too, but the benchmarks have no version to print.
    CommandLine.Model.OptionSpec version = cli.getCommandSpec().findOption("--version");
    if (version != null) {
      cli.getCommandSpec().remove(version);
    }
    try {
      if (CommandLine.printHelpIfRequested(cli.parseArgs(args))) {
        System.exit(0);
      }
      return options;
    } catch (ParameterException e) {
      System.err.println(e.getMessage());
      e.getCommandLine().usage(System.err);
      System.exit(CommandLine.ExitCode.USAGE);
      return options;
    }
  }
}
