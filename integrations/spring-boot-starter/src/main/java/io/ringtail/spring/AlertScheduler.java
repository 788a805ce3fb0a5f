package io.ringtail.spring;

import io.ringtail.alert.AlertMonitor;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import org.springframework.context.SmartLifecycle;

/**
 * Evaluates an {@link AlertMonitor} every interval while the context runs: started with the
 * context, stopped (the schedule cancelled) when it closes.
 *
 * <p>The two-argument constructor gives the scheduler a thread of its own ({@code ringtail-alerts},
 * a daemon), created on start and ended on stop. It is deliberately not a bean: a {@code
 * TaskScheduler} or {@code ScheduledExecutorService} bean would make Spring Boot's own {@code
 * taskScheduler} back off, and the application's {@code @Scheduled} methods would then run on
 * Ringtail's thread.
 *
 * <p>Thread-safe.
 */
public final class AlertScheduler implements SmartLifecycle {
  private final AlertMonitor monitor;
  private final ScheduledExecutorService shared;
  private final Duration interval;
  private ScheduledExecutorService owned;
  private ScheduledFuture<?> schedule;

  /**
   * Evaluates on a thread of its own.
   *
   * @throws IllegalArgumentException if interval is not positive
   */
  public AlertScheduler(AlertMonitor monitor, Duration interval) {
    this(monitor, null, interval);
  }

  /**
   * Evaluates on {@code scheduler}, which the caller owns (it is not shut down on stop).
   *
   * @throws IllegalArgumentException if interval is not positive
   */
  public AlertScheduler(
      AlertMonitor monitor, ScheduledExecutorService scheduler, Duration interval) {
    this.monitor = Objects.requireNonNull(monitor, "monitor");
    this.shared = scheduler;
    this.interval = Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw Checks.invalid("ringtail.alerts.interval", "positive", interval);
    }
  }

  @Override
  public synchronized void start() {
    if (schedule == null) {
      ScheduledExecutorService scheduler = shared;
      if (scheduler == null) {
        owned =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "ringtail-alerts");
                  t.setDaemon(true);
                  return t;
                });
        scheduler = owned;
      }
      schedule = monitor.scheduleWith(scheduler, interval);
    }
  }

  @Override
  public synchronized void stop() {
    if (schedule != null) {
      schedule.cancel(false);
      schedule = null;
    }
    if (owned != null) {
      owned.shutdownNow();
      owned = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return schedule != null;
  }

  /** The monitor evaluated. */
  public AlertMonitor monitor() {
    return monitor;
  }
}
