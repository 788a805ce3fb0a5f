package io.ringtail.spring.slo;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the declared service levels while the context runs: builds them on start, evaluates each
 * one's alerts every {@code evaluation-interval} on a daemon thread of its own ({@code
 * ringtail-slo}; not a scheduler bean, so Boot's own {@code taskScheduler} still backs the
 * application's), and on stop ends the schedule and closes them. It stops after the web server (so
 * requests in flight are recorded) and before the Redis client (so a fleet service level publishes
 * what it holds). Thread-safe.
 */
final class SloLifecycle implements SmartLifecycle {
  private final ServiceLevels levels;
  private ScheduledExecutorService executor; // guarded by this

  SloLifecycle(ServiceLevels levels) {
    this.levels = levels;
  }

  @Override
  public synchronized void start() {
    if (executor == null) {
      levels.serviceLevels();
      executor =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "ringtail-slo");
                t.setDaemon(true);
                return t;
              });
      for (Declared d : levels.declared()) {
        long every = d.evaluationInterval.toNanos();
        String name = d.config.name();
        executor.scheduleAtFixedRate(() -> evaluate(name), every, every, TimeUnit.NANOSECONDS);
      }
    }
  }

  /** One evaluation; a failure is the next evaluation's to retry, never the schedule's end. */
  private void evaluate(String name) {
    try {
      levels.evaluate(name);
    } catch (RuntimeException e) {
      System.getLogger(ServiceLevels.class.getName())
          .log(System.Logger.Level.WARNING, "Service level " + name + " not evaluated: " + e);
    }
  }

  @Override
  public synchronized void stop() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
    levels.close();
  }

  @Override
  public synchronized boolean isRunning() {
    return executor != null;
  }

  /** Below the web server's stop phases, above the Lettuce client's. */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE - 4096;
  }
}
