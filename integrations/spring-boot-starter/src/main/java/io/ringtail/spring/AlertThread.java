package io.ringtail.spring;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The starter's one alert thread ({@code ringtail-alerts}, a daemon): every {@link AlertScheduler}
 * the starter configures (the {@code AlertRule} beans' monitor, the endpoint anomaly alerts) runs
 * on it. Started by the first schedule, ended when the context closes. Deliberately not a {@code
 * ScheduledExecutorService} bean: one would make Spring Boot's own {@code taskScheduler} back off,
 * and the application's {@code @Scheduled} methods would then run on Ringtail's thread.
 *
 * <p>Thread-safe.
 */
public final class AlertThread implements AutoCloseable {
  private ScheduledExecutorService executor; // guarded by this

  /** The thread's scheduler, for {@link AlertScheduler}; its thread starts with a first task. */
  public synchronized ScheduledExecutorService scheduler() {
    if (executor == null) {
      executor =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "ringtail-alerts");
                t.setDaemon(true);
                return t;
              });
    }
    return executor;
  }

  /** Ends the thread, cancelling what is scheduled on it. */
  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }
}
