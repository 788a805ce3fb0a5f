package io.ringtail.benchmarks.toolkit;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The programs' command lines, read with picocli into an options object annotated with its flags:
 * {@code --help} (from the reports' {@link ReportOptions} mixin, or picocli's standard help mixin
 * less its {@code --version}) prints the usage and exits 0; a bad flag or value prints what is
 * wrong and the usage, and exits 2. Of a {@link ReportOptions} mixin, only the flags the report
 * accepts are kept.
 */
public final class Cli {
  private Cli() {}

  /** Fills {@code options} from {@code args} and returns it (or exits, as above). */
  public static <T> T parse(T options, String... args) {
    CommandLine cli = commandLine(options);
    try {
      if (CommandLine.printHelpIfRequested(cli.parseArgs(args))) {
        System.exit(0);
      }
      check(cli);
      return options;
    } catch (ParameterException e) {
      System.err.println(e.getMessage());
      e.getCommandLine().usage(System.err);
      System.exit(CommandLine.ExitCode.USAGE);
      return options;
    }
  }

  /** The command line of {@code options}: its flags, less those it does not accept. */
  static CommandLine commandLine(Object options) {
    CommandLine cli = new CommandLine(options);
    // The standard help mixin brings --version too, but the benchmarks have no version to print.
    OptionSpec version = cli.getCommandSpec().findOption("--version");
    if (version != null) {
      cli.getCommandSpec().remove(version);
    }
    for (CommandSpec mixin : cli.getCommandSpec().mixins().values()) {
      if (mixin.userObject() instanceof ReportOptions o) {
        for (OptionSpec option : mixin.options()) {
          if (!o.accepted().contains(option.longestName())) {
            cli.getCommandSpec().remove(option);
          }
        }
      }
    }
    return cli;
  }

  /** After parsing: what the types of the flags cannot check. */
  static void check(CommandLine cli) {
    for (CommandSpec mixin : cli.getCommandSpec().mixins().values()) {
      if (mixin.userObject() instanceof ReportOptions o) {
        o.check(cli);
      }
    }
  }
}
