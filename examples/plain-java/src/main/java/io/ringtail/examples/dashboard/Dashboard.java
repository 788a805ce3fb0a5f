package io.ringtail.examples.dashboard;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringtail.TimeSource;
import io.ringtail.micrometer.SloMetrics;
import io.ringtail.micrometer.WindowMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One run of the SLA dashboard: simulated workers recording into rolling windows, the model that
 * samples them, and the HTTP server that shows them. Tests drive it step by step with an injected
 * time source ({@link #serveDue()}, {@link #sample()}); {@link #runLive} drives it in real time.
 * Thread-safe for {@link #requestStop()}; otherwise driven by one thread.
 */
final class Dashboard implements AutoCloseable {
  static final Duration SHORT = DashboardWindows.SHORT;
  static final Duration LONG = DashboardWindows.LONG;
  private static final long TICK_MILLIS = 10;

  private final Options options;
  private final DashboardWindows windows;
  private final TimeSource time;
  private final long startNanos;
  private final List<SimulatedWorker> workers;
  private final DashboardModel model;
  private final PrometheusMeterRegistry registry;
  private final DashboardServer server;
  private final CountDownLatch stop = new CountDownLatch(1);

  private Dashboard(
      Options options, DashboardWindows windows, TimeSource time, long startEpochMillis)
      throws IOException {
    this.options = options;
    this.windows = windows;
    this.time = time;
    long createdNanos = time.nanoTime();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WindowMetrics.monitor(registry, windows.shortView(), "10s", "service", "checkout");
    WindowMetrics.monitor(registry, windows.longView(), "60s", "service", "checkout");
    SloMetrics.monitor(registry, windows.serviceLevelView(), "service", "checkout");
    DashboardSlo slo =
        new DashboardSlo(windows.serviceLevelView(), windows.serviceLevelScope(), windows::pagerOf);
    DashboardAlerts alerts =
        new DashboardAlerts(windows.shortView(), windows.longView(), options.sloMillis(), time);
    // the simulation starts once the slow set-up above (class loading, mostly) is done
    this.startNanos = time.nanoTime();
    SimulatedService service = new SimulatedService(options.duration());
    workers = new ArrayList<>();
    for (int i = 0; i < options.workers(); i++) {
      workers.add(
          new SimulatedWorker(
              service,
              windows.forWorker(i),
              windows.routesForWorker(i),
              windows.serviceLevelForWorker(i),
              (double) options.rate() / options.workers(),
              startNanos,
              1_000 + i));
    }
    model =
        new DashboardModel(
            windows.mode(),
            options,
            windows.shortView(),
            windows.longView(),
            windows.routesView(),
            service,
            alerts,
            slo,
            time,
            startNanos,
            startEpochMillis + (startNanos - createdNanos) / 1_000_000,
            this::servedPerWorker);
    server = new DashboardServer(options.port(), model, registry::scrape);
  }

  /** Builds the dashboard; the server is bound but not started. */
  static Dashboard create(Options options, TimeSource time, long startEpochMillis)
      throws IOException {
    DashboardWindows windows =
        options
            .redis()
            .<DashboardWindows>map(
                uri ->
                    FleetWindows.connect(
                        uri,
                        options.fleet(),
                        options.workers(),
                        options.rate(),
                        options.rawFleetWindow(),
                        options.sloMillis()))
            .orElseGet(
                () ->
                    DashboardWindows.inProcess(
                        options.workers(),
                        time,
                        DashboardSlo.config("checkout", options.sloMillis())));
    return create(options, windows, time, startEpochMillis);
  }

  /** Builds the dashboard on {@code windows}, which it closes; the server is not started. */
  static Dashboard create(
      Options options, DashboardWindows windows, TimeSource time, long startEpochMillis)
      throws IOException {
    try {
      return new Dashboard(options, windows, time, startEpochMillis);
    } catch (IOException | RuntimeException e) {
      windows.close();
      throw e;
    }
  }

  void startServer() {
    server.start();
  }

  String url() {
    return server.url();
  }

  DashboardModel model() {
    return model;
  }

  /** Lets every worker serve the requests due by now; returns how many were served. */
  long serveDue() {
    long now = time.nanoTime();
    long n = 0;
    for (SimulatedWorker w : workers) {
      n += w.catchUp(now);
    }
    return n;
  }

  Point sample() {
    return model.sample();
  }

  long[] servedPerWorker() {
    return workers.stream().mapToLong(SimulatedWorker::served).toArray();
  }

  /** Waits until every sample recorded so far is visible to the page's windows. */
  boolean flush() {
    return windows.flush();
  }

  long served() {
    long n = 0;
    for (SimulatedWorker w : workers) {
      n += w.served();
    }
    return n;
  }

  void requestStop() {
    stop.countDown();
  }

  /**
   * Runs in real time until the duration is over or {@link #requestStop()}: workers record on their
   * own threads, and once a second a sample is taken and a summary line printed.
   *
   * @return whether the run reached its full duration
   */
  boolean runLive(PrintStream out) throws InterruptedException {
    AtomicInteger ids = new AtomicInteger();
    ScheduledExecutorService pool =
        Executors.newScheduledThreadPool(
            workers.size() + 1,
            r -> {
              Thread t = new Thread(r, "dashboard-" + ids.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    try {
      for (SimulatedWorker w : workers) {
        pool.scheduleAtFixedRate(
            guarded(() -> w.catchUp(time.nanoTime())), 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
      }
      long second = TimeUnit.SECONDS.toNanos(1);
      long firstSample = second - Math.floorMod(time.nanoTime() - startNanos, second);
      pool.scheduleAtFixedRate(
          () -> {
            try {
              Point p = model.sample();
              out.println(line(p));
              p.alertEvents().forEach(e -> out.println("       alert " + e));
            } catch (RuntimeException e) {
              out.println("sample failed, retrying in 1 s: " + e);
            }
          },
          firstSample,
          second,
          TimeUnit.NANOSECONDS);
      long left = startNanos + options.duration().toNanos() - time.nanoTime();
      return !stop.await(left, TimeUnit.NANOSECONDS);
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(2, TimeUnit.SECONDS);
      model.finish();
    }
  }

  /** The one-line terminal summary of a sample. */
  String line(Point p) {
    long total = options.duration().toSeconds();
    long elapsed = Math.min(total, Math.round(p.elapsedNanos() / 1e9));
    int width = 20;
    int filled = (int) (width * elapsed / total);
    WindowStats l = p.longWindow();
    return String.format(
        Locale.ROOT,
        "%4d/%d s [%s%s] %-9s | last %s: %s req  mean %s  p95 %s  p99 %s | last %s p95 %s | alert %s"
            + " | slo %s",
        elapsed,
        total,
        "#".repeat(filled),
        ".".repeat(width - filled),
        p.regime().label(),
        DashboardModel.label(LONG),
        Format.count(l.count()),
        Format.millis(l.meanMillis()),
        Format.millis(l.p95Millis()),
        Format.millis(l.p99Millis()),
        DashboardModel.label(SHORT),
        Format.millis(p.shortWindow().p95Millis()),
        p.alertFiring() ? "FIRING" : "ok",
        p.sloState().equals("ok") ? "ok" : p.sloState().toUpperCase(Locale.ROOT));
  }

  private static Runnable guarded(Runnable r) {
    return () -> {
      try {
        r.run();
      } catch (RuntimeException | Error e) {
        e.printStackTrace();
        throw e;
      }
    };
  }

  @Override
  public void close() {
    server.stop();
    registry.close();
    windows.close();
  }
}
