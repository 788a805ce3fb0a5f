package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.Cli;
import io.ringtail.benchmarks.toolkit.Format;
import io.ringtail.benchmarks.toolkit.Machine;
import io.ringtail.benchmarks.toolkit.ReportOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the request threads' CPU goes in the examples' load target with the starter, within one
 * run: the application under wrk's closed loop (pinned as in {@link ServiceLoadReport}), profiled
 * by the flight recorder's execution sampler after the warm-up, and the share of its request
 * threads' samples (Tomcat's {@code http-nio} threads) under the starter's observation handler,
 * under any Ringtail frame, and under Micrometer's own timer handler. One application, so the
 * shares do not suffer the spread between application starts that throughput rounds do: what the
 * starter's own code costs a request, as a fraction of all the request's work. Writes {@code
 * benchmarks/target/starter-profile.md}.
 */
public final class StarterProfileReport {
  private StarterProfileReport() {}

  /** Thread names of Tomcat's request threads. */
  static final Predicate<String> REQUEST_THREADS = name -> name.startsWith("http-nio-");

  /** The groups of frames reported, by what they are. */
  static final Map<String, Predicate<String>> GROUPS = groups();

  /** The command line. */
  @Command(
      name = "StarterProfileReport",
      description = "The starter's share of a service's request threads' samples.")
  static final class Options {
    @Mixin ReportOptions common = ReportOptions.writing("starter-profile.md").acceptSeconds(60);

    @Mixin LoadTarget.Options target = new LoadTarget.Options();

    @Option(names = "--configuration", description = "The load target's configuration.")
    String configuration = "starter";

    @Option(names = "--warmup", description = "Seconds of load before the recording.")
    int warmup = 120;

    @Option(names = "--period-millis", description = "The execution sampler's period.")
    int periodMillis = 1;

    @Option(
        names = "--keep-recording",
        description = "Where to keep the flight recording (deleted when not given).")
    Path keepRecording;
  }

  public static void main(String[] args) throws Exception {
    Options cli = Cli.parse(new Options(), args);
    Instant began = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    WrkLoad wrk = new WrkLoad(cli.target.loadThreads, cli.target.connections);
    Path settings = Files.createTempFile("starter-profile", ".jfc");
    Path recording = Files.createTempFile("starter-profile", ".jfr");
    Files.writeString(settings, ProfileShares.samplerSettings(cli.periodMillis));
    Files.delete(recording);
    int seconds = cli.common.wholeSeconds();
    WrkLoad.Result measured;
    try (LoadTarget app =
        LoadTarget.start(cli.target, List.of("--configuration=" + cli.configuration))) {
      int port = app.port();
      if (cli.warmup > 0) {
        wrk.closedLoop(port, cli.warmup);
      }
      CompletableFuture<WrkLoad.Result> load =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return wrk.closedLoop(port, seconds + 4);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      Thread.sleep(2_000);
      jcmd(
          app.pid(),
          "JFR.start",
          "settings=" + settings,
          "duration=" + seconds + "s",
          "filename=" + recording);
      measured = load.join();
      awaitWritten(recording, Duration.ofSeconds(60));
    }
    ProfileShares.Shares shares = ProfileShares.of(recording, REQUEST_THREADS, GROUPS);
    StringBuilder md = new StringBuilder();
    md.append(
        Format.fmt(
            "StarterProfileReport, %s to %s, %d cores, %s; the load target (%s) on CPU %s, %s (%d"
                + " threads, %d connections) on the others, %.0f requests/s while recorded;"
                + " execution samples every %d ms for %d s after %d s of load: %d samples of"
                + " request threads.%n%n",
            began,
            Instant.now().truncatedTo(ChronoUnit.SECONDS),
            Machine.cores(),
            Machine.cpuModel(),
            cli.configuration,
            cli.target.appCpus,
            WrkLoad.version(),
            cli.target.loadThreads,
            cli.target.connections,
            measured.perSecond(),
            cli.periodMillis,
            seconds,
            cli.warmup,
            shares.samples()));
    md.append("| frames | samples | share of the request threads' samples |\n|---|---:|---:|\n");
    for (String group : GROUPS.keySet()) {
      md.append(
          Format.fmt(
              "| %s | %d | %.2f %% |%n",
              group, shares.byGroup().get(group), 100 * shares.share(group)));
    }
    Path out = cli.common.out();
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, md.toString());
    System.out.print(md);
    if (cli.keepRecording != null) {
      Files.move(recording, cli.keepRecording, StandardCopyOption.REPLACE_EXISTING);
      System.out.println("recording kept at " + cli.keepRecording);
    }
    Files.deleteIfExists(recording);
    Files.deleteIfExists(settings);
  }

  private static Map<String, Predicate<String>> groups() {
    Map<String, Predicate<String>> groups = new LinkedHashMap<>();
    groups.put(
        "the starter's observation handler (`ObservationWindows`, with what it calls)",
        c -> c.equals("io.ringtail.spring.observation.ObservationWindows"));
    groups.put(
        "the starter's limit filter (`RingtailLimitFilter`, with what it calls)",
        c -> c.equals("io.ringtail.spring.limit.RingtailLimitFilter"));
    groups.put(
        "any Ringtail frame (`io.ringtail`, the load target's own aside)",
        c -> c.startsWith("io.ringtail.") && !c.startsWith("io.ringtail.examples."));
    groups.put(
        "Micrometer's timer handler (`DefaultMeterObservationHandler`, with what it calls)",
        c -> c.equals("io.micrometer.core.instrument.observation.DefaultMeterObservationHandler"));
    return groups;
  }

  private static void jcmd(long pid, String... command) throws Exception {
    List<String> all = new ArrayList<>();
    all.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    all.add(Long.toString(pid));
    all.addAll(List.of(command));
    Process p = new ProcessBuilder(all).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("jcmd " + String.join(" ", command) + ": " + output);
    }
  }

  /** Waits until the recorder has written {@code recording} (its size stays put). */
  private static void awaitWritten(Path recording, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long size = -1;
    while (System.nanoTime() < deadline) {
      long now = Files.exists(recording) ? Files.size(recording) : 0;
      if (now > 0 && now == size) {
        return;
      }
      size = now;
      Thread.sleep(500);
    }
    throw new IllegalStateException("no recording written to " + recording + " in " + timeout);
  }
}
