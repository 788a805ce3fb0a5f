package io.ringtail.benchmarks.toolkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The flags the report programs share, one picocli mixin for all of them ({@code @Mixin
 * ReportOptions common = ReportOptions.writing("x.md").acceptDocs();}): {@code --help} always, and
 * each of {@code --out}, {@code --docs}, {@code --seconds}, {@code --rate}, {@code --jvms}, {@code
 * --server-cpus} and {@code --server-realtime} only where the report accepts it, with the report's
 * default. {@link Cli#parse} drops the flags a report does not accept, so its usage and its errors
 * name only its own. Not thread-safe; filled once, read by the report's main thread.
 */
public final class ReportOptions {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  @Option(names = "--out", description = "Where to write the report.")
  private Path out;

  @Option(names = "--docs", description = "Docs pages whose block to replace (repeatable).")
  private List<Path> docs = new ArrayList<>();

  @Option(names = "--seconds", description = "Seconds of load in each measurement.")
  private double seconds;

  @Option(names = "--rate", description = "Samples per second, all processes together.")
  private long rate;

  @Option(names = "--jvms", description = "Child JVMs the simulated processes share.")
  private int jvms = 2;

  @Option(names = "--server-cpus", description = "CPUs to pin redis-server to (taskset).")
  private String serverCpus;

  @Option(
      names = "--server-realtime",
      description =
          "Run redis-server at real-time priority (chrt, as root), as on a host of its own.")
  private boolean serverRealtime;

  private final Set<String> accepted = new LinkedHashSet<>(List.of("--help"));
  private boolean wholeSeconds;

  private ReportOptions() {}

  /** A report that prints its results and writes no file: {@code --help} only, so far. */
  public static ReportOptions printing() {
    return new ReportOptions();
  }

  /** A report that writes {@code --out}, by default {@code benchmarks/target/<file>}. */
  public static ReportOptions writing(String file) {
    ReportOptions o = new ReportOptions();
    o.out = Path.of("benchmarks/target").resolve(file);
    o.accepted.add("--out");
    return o;
  }

  /** Accepts {@code --docs FILE} (repeatable): pages whose block the report replaces. */
  public ReportOptions acceptDocs() {
    accepted.add("--docs");
    return this;
  }

  /** Accepts {@code --seconds}, a whole number of seconds, by default {@code seconds}. */
  public ReportOptions acceptSeconds(int seconds) {
    acceptSeconds((double) seconds);
    wholeSeconds = true;
    return this;
  }

  /** Accepts {@code --seconds}, fractions allowed, by default {@code seconds}. */
  public ReportOptions acceptSeconds(double seconds) {
    this.seconds = seconds;
    accepted.add("--seconds");
    return this;
  }

  /** Accepts {@code --rate}, samples per second, by default {@code rate}. */
  public ReportOptions acceptRate(long rate) {
    this.rate = rate;
    accepted.add("--rate");
    return this;
  }

  /** Accepts {@code --jvms}, the child JVMs, by default 2. */
  public ReportOptions acceptJvms() {
    accepted.add("--jvms");
    return this;
  }

  /** Accepts {@code --server-cpus}: the CPUs redis-server is pinned to, by default none. */
  public ReportOptions acceptServerCpus() {
    accepted.add("--server-cpus");
    return this;
  }

  /** Accepts {@code --server-realtime}: redis-server at real-time priority, by default off. */
  public ReportOptions acceptServerRealtime() {
    accepted.add("--server-realtime");
    return this;
  }

  /** Where the report is written. */
  public Path out() {
    return out;
  }

  /** The docs pages whose block to replace, in the order given; empty when none. */
  public List<Path> docs() {
    return docs;
  }

  /** {@code --seconds}. */
  public double seconds() {
    return seconds;
  }

  /** {@code --seconds}, when the report accepts whole seconds only. */
  public int wholeSeconds() {
    return (int) seconds;
  }

  /** {@code --rate}. */
  public long rate() {
    return rate;
  }

  /** {@code --jvms}. */
  public int jvms() {
    return jvms;
  }

  /** {@code --server-cpus}, or null. */
  public String serverCpus() {
    return serverCpus;
  }

  /** {@code --server-realtime}. */
  public boolean serverRealtime() {
    return serverRealtime;
  }

  /** The flags this report accepts, {@code --help} first. */
  Set<String> accepted() {
    return accepted;
  }

  /** Checks what picocli's types cannot: whole seconds where the report asks for them. */
  void check(CommandLine cli) {
    if (wholeSeconds && (seconds != Math.rint(seconds) || Math.abs(seconds) > Integer.MAX_VALUE)) {
      throw new ParameterException(
          cli, "Invalid value for option '--seconds': '" + seconds + "' is not an int");
    }
  }
}
