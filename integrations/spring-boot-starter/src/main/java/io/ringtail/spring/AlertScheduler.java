package io.ringtail.spring;

import io.ringtail.alert.AlertMonitor;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import org.springframework.context.SmartLifecycle;

/**
 * Evaluates an {@link AlertMonitor} every interval on a Spring-managed scheduler while the context
 * runs: started with the context, stopped (the schedule cancelled) before the scheduler shuts down.
 *
 * <p>Thread-safe.
 */
public final class AlertScheduler implements SmartLifecycle {
  private final AlertMonitor monitor;
  private final ScheduledExecutorService scheduler;
  private final Duration interval;
  private ScheduledFuture<?> schedule;

  /**
   * @throws IllegalArgumentException if interval is not positive
   */
  public AlertScheduler(
      AlertMonitor monitor, ScheduledExecutorService scheduler, Duration interval) {
    this.monitor = Objects.requireNonNull(monitor, "monitor");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.interval = Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "ringtail.alerts.interval must be positive, but was " + interval);
    }
  }

  @Override
  public synchronized void start() {
    if (schedule == null) {
      schedule = monitor.scheduleWith(scheduler, interval);
    }
  }

  @Override
  public synchronized void stop() {
    if (schedule != null) {
      schedule.cancel(false);
      schedule = null;
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
