package io.ringtail.examples.dashboard;

import io.ringtail.TimeSource;
import io.ringtail.examples.Flags;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ringtail's flagship example: a live SLA dashboard over a simulated service whose latency degrades
 * and recovers. Run it with {@code mvn -q -pl examples/plain-java -am compile exec:java
 * -Dexec.args="--duration 30 --port 8080"} and open the printed address. Flags: {@code --help}. The
 * program runs the simulation, the sampler and the HTTP server on threads of its own and stops them
 * all when its duration ends or on Ctrl-C (a shutdown hook).
 */
public final class SlaDashboard {
  private SlaDashboard() {}

  public static void main(String[] args) throws Exception {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Runs the dashboard until its duration ends or the JVM is interrupted; returns an exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (Flags.HelpRequested e) {
      out.println(Options.USAGE);
      return 0;
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      err.println(Options.USAGE);
      return 2;
    }
    Dashboard dashboard;
    try {
      dashboard = Dashboard.create(options, TimeSource.system(), System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      err.println("Could not start the dashboard: " + e);
      return 1;
    }
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              dashboard.requestStop();
              try {
                closed.await(5, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "dashboard-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      dashboard.startServer();
      out.printf(
          "Ringtail SLA dashboard: %s  (JSON %sapi/stats, Prometheus %smetrics)%n",
          dashboard.url(), dashboard.url(), dashboard.url());
      out.printf(
          "Simulated checkout service: %,d req/s from %d workers for %d s, normal -> degraded"
              + " -> recovered; %s windows of %s and %s. Ctrl-C stops.%n",
          options.rate(),
          options.workers(),
          options.duration().toSeconds(),
          dashboard.model().mode(),
          DashboardModel.label(Dashboard.SHORT),
          DashboardModel.label(Dashboard.LONG));
      boolean completed = dashboard.runLive(out);
      if (!dashboard.flush()) {
        out.println("Some recorded samples had not reached the windows 10 s after the run ended.");
      }
      Point last = dashboard.sample();
      out.printf(
          "%s after %s: %,d requests served. Final: %s%n",
          completed ? "Done" : "Stopped",
          Format.millis(last.elapsedNanos() / 1e6),
          dashboard.served(),
          dashboard.line(last).substring(dashboard.line(last).indexOf('|') + 2));
    } finally {
      dashboard.close();
      closed.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it waits on `closed`, which is now released
      }
    }
    return 0;
  }
}
