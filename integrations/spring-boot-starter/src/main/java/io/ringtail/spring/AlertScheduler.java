package io.ringtail.spring;

import io.ringtail.alert.AlertMonitor;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.context.SmartLifecycle;

/**
 * Evaluates an {@link AlertMonitor} every interval while the context runs: started with the
 * context, stopped (the schedule cancelled) when it closes.
 *
 * <p>The starter's schedulers share one thread, {@link AlertThread} ({@code ringtail-alerts}). The
 * two-argument constructor gives a scheduler a thread of its own (of the same name, a daemon),
 * created on start and ended on stop. Neither is a bean of a scheduler type: a {@code
 * TaskScheduler} or {@code ScheduledExecutorService} bean would make Spring Boot's own {@code
 * taskScheduler} back off, and the application's {@code @Scheduled} methods would then run on
 * Ringtail's thread.
 *
 * <p>Thread-safe.
 */
public final class AlertScheduler implements SmartLifecycle {
  private static final System.Logger LOG = System.getLogger(AlertScheduler.class.getName());

  private final AlertMonitor monitor;
  private final Runnable evaluation;
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
    this(monitor, Objects.requireNonNull(monitor, "monitor")::evaluate, scheduler, interval);
  }

  /**
   * Runs {@code evaluation}, a step that evaluates {@code monitor} (the endpoint anomaly alerts
   * read their windows first), on {@code scheduler}, which the caller owns. A step that throws is
   * logged and the schedule goes on.
   *
   * @throws IllegalArgumentException if interval is not positive
   */
  public AlertScheduler(
      AlertMonitor monitor,
      Runnable evaluation,
      ScheduledExecutorService scheduler,
      Duration interval) {
    this.monitor = Objects.requireNonNull(monitor, "monitor");
    this.evaluation = Objects.requireNonNull(evaluation, "evaluation");
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
      long nanos = interval.toNanos();
      schedule = scheduler.scheduleAtFixedRate(this::step, nanos, nanos, TimeUnit.NANOSECONDS);
    }
  }

  private void step() {
    try {
      evaluation.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Evaluating " + monitor + " failed; the schedule goes on", e);
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
