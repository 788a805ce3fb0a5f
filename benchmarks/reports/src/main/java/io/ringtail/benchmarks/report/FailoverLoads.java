package io.ringtail.benchmarks.report;

import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** What the load of one failover recorded per key, to compare with what Redis kept after it. */
final class FailoverLoads {
  private FailoverLoads() {}

  /** One key's admissions: (time, amount) pairs in decision order. */
  static final class Admissions {
    final List<long[]> admitted = new ArrayList<>();

    /** The most admitted amount in any window (t - w, t] beyond {@code limit}, or 0. */
    long overAdmission(long windowNanos, long limit) {
      long most = 0;
      long inWindow = 0;
      int first = 0;
      for (long[] a : admitted) {
        inWindow += a[1];
        while (admitted.get(first)[0] <= a[0] - windowNanos) {
          inWindow -= admitted.get(first)[1];
          first++;
        }
        most = Math.max(most, inWindow);
      }
      return Math.max(0, most - limit);
    }

    long between(long from, long to) {
      return admitted.stream().filter(a -> a[0] >= from && a[0] <= to).count();
    }
  }

  /** One key of the threshold detector: a new event id per step, and what each was answered. */
  static final class DetectorLoad {
    final ThresholdDetector detector;
    final String key;
    final List<String> counted = new ArrayList<>();
    final List<String> failed = new ArrayList<>();
    long next;

    DetectorLoad(ThresholdDetector detector, String key) {
      this.detector = detector;
      this.key = key;
    }

    void step() {
      String id = "e" + next++;
      try {
        if (detector.record(key, id, FailoverRun.EPOCH.nanoTime()).outcome()
            == ThresholdDecision.Outcome.COUNTED) {
          counted.add(id);
        }
      } catch (RedisUnavailableException outage) {
        failed.add(id);
      }
    }

    /** Records {@code ids} again; how many are answered {@code outcome} (retrying outages). */
    long recheck(List<String> ids, ThresholdDecision.Outcome outcome) throws InterruptedException {
      long n = 0;
      for (String id : ids) {
        for (int attempt = 0; ; attempt++) {
          try {
            if (detector.record(key, id, FailoverRun.EPOCH.nanoTime()).outcome() == outcome) {
              n++;
            }
            break;
          } catch (RedisUnavailableException outage) {
            if (attempt == 50) {
              throw outage;
            }
            Thread.sleep(100);
          }
        }
      }
      return n;
    }
  }

  /** One key of the keyed fleet window: samples recorded, and those a flush confirmed. */
  static final class KeyedLoad {
    final RedisKeyedHistogramWindows windows;
    final String key;
    final AtomicLong recorded = new AtomicLong();
    final AtomicLong confirmed = new AtomicLong();

    KeyedLoad(RedisKeyedHistogramWindows windows, String key) {
      this.windows = windows;
      this.key = key;
    }

    void step() {
      long n = recorded.incrementAndGet();
      windows.record(key, n);
      if (n % 20 == 0 && windows.flush(Duration.ofMillis(300))) {
        confirmed.set(n);
      }
    }
  }
}
