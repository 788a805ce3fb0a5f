package io.ringtail.testkit;

import io.ringtail.decision.RateDecision;
import io.ringtail.decision.SumDecision;
import io.ringtail.decision.ThresholdDecision;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Naive, obviously exact models of the three decisions: every key keeps a plain list of everything
 * it ever admitted and each decision rescans it. Published in ringtail-testkit as the reference
 * every backend is compared with on random streams.
 */
public final class ExactDecisionModels {
  private ExactDecisionModels() {}

  /** The reference {@link io.ringtail.decision.RateLimiter}. */
  public static final class RateLimit {
    private final int limit;
    private final long window;
    private final Map<String, List<Long>> admitted = new HashMap<>();
    private final Map<String, Long> latest = new HashMap<>();

    public RateLimit(int limit, Duration window) {
      this.limit = limit;
      this.window = window.toNanos();
    }

    public RateDecision tryAcquire(String key, long time) {
      long t = Math.max(time, latest.getOrDefault(key, Long.MIN_VALUE));
      latest.put(key, t);
      List<Long> log = admitted.computeIfAbsent(key, k -> new ArrayList<>());
      List<Long> inWindow = new ArrayList<>();
      for (long s : log) {
        if (s > t - window) {
          inWindow.add(s);
        }
      }
      boolean allowed = inWindow.size() < limit;
      if (allowed) {
        log.add(t);
        inWindow.add(t);
      }
      int remaining = limit - inWindow.size();
      Duration retry =
          remaining > 0
              ? Duration.ZERO
              : Duration.ofNanos(
                  inWindow.stream().mapToLong(Long::longValue).min().getAsLong() + window - t);
      return new RateDecision(allowed, remaining, limit, retry);
    }
  }

  /**
   * The reference {@link io.ringtail.decision.ThresholdDetector}, keeping every event (no per-key
   * cap).
   */
  public static final class Threshold {
    private final int threshold;
    private final long window;
    private final Map<String, Map<String, Long>> events = new HashMap<>();
    private final Map<String, Long> latest = new HashMap<>();

    public Threshold(int threshold, Duration window) {
      this.threshold = threshold;
      this.window = window.toNanos();
    }

    public ThresholdDecision record(String key, String id, long time) {
      Map<String, Long> held = events.computeIfAbsent(key, k -> new LinkedHashMap<>());
      Long last = latest.get(key);
      int before = countAfter(held, last == null ? Long.MIN_VALUE : last - window);
      if (last != null && time <= last - window) {
        return new ThresholdDecision(ThresholdDecision.Outcome.EXPIRED, before, threshold, false);
      }
      if (held.containsKey(id)
          && held.get(id) > Math.max(last == null ? time : last, time) - window) {
        return new ThresholdDecision(ThresholdDecision.Outcome.DUPLICATE, before, threshold, false);
      }
      long newLatest = last == null ? time : Math.max(last, time);
      latest.put(key, newLatest);
      held.values().removeIf(s -> s <= newLatest - window);
      int stillHeld = held.size();
      held.put(id, time);
      int after = held.size();
      boolean crossed = after >= threshold && stillHeld < threshold;
      return new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, after, threshold, crossed);
    }

    private static int countAfter(Map<String, Long> held, long cutoff) {
      int n = 0;
      for (long s : held.values()) {
        if (s > cutoff) {
          n++;
        }
      }
      return n;
    }
  }

  /**
   * The reference {@link io.ringtail.decision.SumCap}, in {@link BigDecimal} throughout (no per-key
   * entry cap).
   */
  public static final class Sum {
    private final BigDecimal cap;
    private final long window;
    private final int scale;
    private final Map<String, List<long[]>> admittedTimes = new HashMap<>();
    private final Map<String, List<BigDecimal>> admittedAmounts = new HashMap<>();
    private final Map<String, Long> latest = new HashMap<>();

    public Sum(BigDecimal cap, Duration window, int scale) {
      this.cap = cap.setScale(scale);
      this.window = window.toNanos();
      this.scale = scale;
    }

    public SumDecision tryAdd(String key, BigDecimal amount, long time) {
      BigDecimal a = amount.setScale(scale);
      long t = Math.max(time, latest.getOrDefault(key, Long.MIN_VALUE));
      latest.put(key, t);
      List<long[]> times = admittedTimes.computeIfAbsent(key, k -> new ArrayList<>());
      List<BigDecimal> amounts = admittedAmounts.computeIfAbsent(key, k -> new ArrayList<>());
      BigDecimal total = BigDecimal.ZERO.setScale(scale);
      for (int i = 0; i < times.size(); i++) {
        if (times.get(i)[0] > t - window) {
          total = total.add(amounts.get(i));
        }
      }
      boolean exceeds = a.compareTo(cap) > 0;
      boolean allowed = !exceeds && total.add(a).compareTo(cap) <= 0;
      if (allowed && a.signum() > 0) {
        times.add(new long[] {t});
        amounts.add(a);
        total = total.add(a);
      }
      Optional<Duration> retry;
      if (exceeds) {
        retry = Optional.empty();
      } else if (allowed) {
        retry = Optional.of(Duration.ZERO);
      } else {
        BigDecimal left = total;
        long wait = -1;
        for (int i = 0; i < times.size() && wait < 0; i++) {
          long s = times.get(i)[0];
          if (s > t - window) {
            left = left.subtract(amounts.get(i));
            if (left.add(a).compareTo(cap) <= 0) {
              wait = s + window - t;
            }
          }
        }
        retry = Optional.of(Duration.ofNanos(wait));
      }
      long frees = 0;
      for (long[] s : times) {
        if (s[0] > t - window) {
          frees = s[0] + window - t;
          break;
        }
      }
      return new SumDecision(allowed, exceeds, a, total, cap, retry, Duration.ofNanos(frees));
    }
  }
}
