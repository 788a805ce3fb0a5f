package io.ringtail;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The failure isolation of {@link WindowConventions}, for one binding: {@link #read} runs a read of
 * a window and turns a {@link RuntimeException} into {@code null} (the caller leaves the window out
 * of the scrape), logging per window name: the first failure at WARNING with its stack trace, later
 * ones at DEBUG and again at WARNING at most once per {@link
 * WindowConventions#failureLogInterval()} (by the window's time source), the recovery once at INFO.
 * All keys of a keyed collection share their collection's name, so an outage of a Redis-backed
 * collection logs one stack trace, not one per key.
 *
 * <p>What a binding gets from {@link WindowConventions#failures()}; applications never need it.
 * Thread-safe. Holds one entry per window name that has failed.
 */
public final class WindowFailures {
  private static final System.Logger LOG = System.getLogger(WindowConventions.class.getName());

  private final long intervalNanos;
  private final Map<String, Failing> failing = new ConcurrentHashMap<>();

  /** A log of failures under {@code conventions}' interval. */
  WindowFailures(WindowConventions conventions) {
    this.intervalNanos = conventions.failureLogInterval().toNanos();
  }

  /** A failing window: when it last warned, and the failures since. */
  private static final class Failing {
    long warnedAt;
    long since;
  }

  /**
   * {@code read}'s result, or null if it threw a {@link RuntimeException}, which is logged.
   *
   * @param window the window's name (the {@code window} label)
   * @param what the window as a log names it (the name and, for a key, the key)
   * @param time the window's time source
   */
  public <T> T read(String window, String what, TimeSource time, Supplier<T> read) {
    T result;
    try {
      result = read.get();
    } catch (RuntimeException e) {
      failed(window, what, time.nanoTime(), e);
      return null;
    }
    succeeded(window, what);
    return result;
  }

  /** {@code what}, a window or key of {@code window}, failed at {@code now}. */
  public void failed(String window, String what, long now, RuntimeException e) {
    boolean[] first = {false};
    Failing f =
        failing.computeIfAbsent(
            window,
            w -> {
              first[0] = true;
              Failing n = new Failing();
              n.warnedAt = now;
              return n;
            });
    if (first[0]) {
      LOG.log(
          Level.WARNING,
          what
              + " gave no snapshot; it is left out of scrapes until it does (further failures are"
              + " logged at DEBUG, and at WARNING at most once per "
              + format(intervalNanos)
              + ")",
          e);
      return;
    }
    long since;
    synchronized (f) {
      f.since++;
      if (now - f.warnedAt < intervalNanos) {
        since = -1;
      } else {
        since = f.since;
        f.since = 0;
        f.warnedAt = now;
      }
    }
    if (since >= 0) {
      LOG.log(
          Level.WARNING,
          what + " still gives no snapshot (" + since + " failures since the last warning): " + e);
    } else if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(Level.DEBUG, what + " gave no snapshot: " + e);
    }
  }

  /** {@code what}, a window or key of {@code window}, gave a snapshot. */
  public void succeeded(String window, String what) {
    if (!failing.isEmpty() && failing.remove(window) != null) {
      LOG.log(Level.INFO, what + " gives snapshots again");
    }
  }

  /** A duration as a person reads it in a log line: "1 minute", else ISO ("PT30S"). */
  private static String format(long nanos) {
    Duration d = Duration.ofNanos(nanos);
    if (d.toSecondsPart() == 0 && d.toNanosPart() == 0 && d.toMinutes() > 0) {
      return d.toMinutes() + (d.toMinutes() == 1 ? " minute" : " minutes");
    }
    return d.toString();
  }
}
