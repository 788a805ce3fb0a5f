package io.ringtail.benchmarks.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * A report's command line has the shared flags it accepts, with its defaults, beside its own, and
 * none of the others.
 */
class ReportOptionsTest {
  @Command(name = "Fleet")
  static final class Fleet {
    @Mixin ReportOptions common = ReportOptions.writing("fleet.md").acceptSeconds(70).acceptJvms();

    @Option(names = "--processes")
    int processes = 10;
  }

  @Command(name = "Limiters")
  static final class Limiters {
    @Mixin
    ReportOptions common = ReportOptions.writing("limiters.md").acceptDocs().acceptSeconds(3.0);
  }

  @Test
  void defaults_areTheReports() {
    Fleet fleet = new Fleet();
    Cli.commandLine(fleet).parseArgs();
    assertThat(fleet.common.out()).isEqualTo(Path.of("benchmarks/target/fleet.md"));
    assertThat(fleet.common.wholeSeconds()).isEqualTo(70);
    assertThat(fleet.common.jvms()).isEqualTo(2);
    assertThat(fleet.common.docs()).isEmpty();
  }

  @Test
  void acceptedFlags_fillTheMixin_besideTheReportsOwn() {
    Fleet fleet = new Fleet();
    CommandLine cli = Cli.commandLine(fleet);
    cli.parseArgs("--out", "x.md", "--seconds", "5", "--jvms", "3", "--processes", "4");
    Cli.check(cli);
    assertThat(fleet.common.out()).isEqualTo(Path.of("x.md"));
    assertThat(fleet.common.wholeSeconds()).isEqualTo(5);
    assertThat(fleet.common.jvms()).isEqualTo(3);
    assertThat(fleet.processes).isEqualTo(4);

    Limiters limiters = new Limiters();
    cli = Cli.commandLine(limiters);
    cli.parseArgs("--docs", "a.md", "--docs", "b.md", "--seconds", "2.5");
    Cli.check(cli);
    assertThat(limiters.common.docs()).containsExactly(Path.of("a.md"), Path.of("b.md"));
    assertThat(limiters.common.seconds()).isEqualTo(2.5);
  }

  @Test
  void aSharedFlagTheReportDoesNotAccept_isUnknown_andNotInItsUsage() {
    CommandLine cli = Cli.commandLine(new Fleet());
    assertThatThrownBy(() -> cli.parseArgs("--docs", "a.md"))
        .isInstanceOf(ParameterException.class)
        .hasMessageContaining("--docs");
    assertThat(cli.getUsageMessage())
        .contains("--out", "--seconds", "--jvms", "--processes", "--help")
        .doesNotContain("--docs", "--rate", "--server-cpus", "--server-realtime", "--version");
  }

  @Test
  void fractionalSeconds_whereTheReportTakesWholeOnes_isRefused() {
    CommandLine cli = Cli.commandLine(new Fleet());
    cli.parseArgs("--seconds", "2.5");
    assertThatThrownBy(() -> Cli.check(cli))
        .isInstanceOf(ParameterException.class)
        .hasMessage("Invalid value for option '--seconds': '2.5' is not an int");
  }
}
