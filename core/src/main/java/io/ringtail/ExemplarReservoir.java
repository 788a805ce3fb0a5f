package io.ringtail;

import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A few recorded samples that carry a trace id, for the exemplars of histogram exports: from a slow
 * percentile to the trace of a slow request.
 *
 * <p>Keeps, for each power of two of value, the largest sample offered that is at most {@code
 * maxAge} old: so the slowest recent sample is always among them, and the others are spread over
 * the distribution, one per doubling (at most 64). An exemplar older than {@code maxAge} gives way
 * to the next sample of its range, whatever its value.
 *
 * <p>Use beside a window: {@code window.record(nanos); exemplars.offer(nanos, traceId, spanId)}. A
 * window that is offered nothing pays nothing. An offer is a few reads and, when it replaces an
 * exemplar, one small allocation and a compare-and-set (retried only while another offer races it
 * and this one is still the one to keep); it never blocks and never throws for a bad sample (a
 * negative value, a missing trace id: it keeps nothing). Thread-safe.
 */
public final class ExemplarReservoir {
  private static final int RANGES = 64;

  /** One sample with its trace: the value as recorded, and when it was offered. */
  public record Exemplar(long value, String traceId, String spanId, long timeNanos) {}

  private final AtomicReferenceArray<Exemplar> ranges = new AtomicReferenceArray<>(RANGES);
  private final long maxAgeNanos;
  private final TimeSource timeSource;

  private ExemplarReservoir(long maxAgeNanos, TimeSource timeSource) {
    this.maxAgeNanos = maxAgeNanos;
    this.timeSource = timeSource;
  }

  /**
   * A reservoir whose exemplars give way after {@code maxAge} (the window's length suits most).
   *
   * @throws IllegalArgumentException if maxAge is not positive
   * @throws NullPointerException if an argument is null
   */
  public static ExemplarReservoir create(Duration maxAge, TimeSource timeSource) {
    long nanos = Checks.requirePositiveNanos("maxAge", maxAge);
    return new ExemplarReservoir(nanos, Checks.requireNonNull("timeSource", timeSource));
  }

  /**
   * Offers a recorded sample with the trace (and span, may be null) it belongs to. Keeps it when it
   * is the largest of its power of two, or the one there has aged out.
   */
  public void offer(long value, String traceId, String spanId) {
    if (value < 0 || traceId == null || traceId.isEmpty()) {
      return;
    }
    int range = RANGES - 1 - Long.numberOfLeadingZeros(value | 1);
    long now = timeSource.nanoTime();
    Exemplar offered = null;
    for (Exemplar current = ranges.get(range);
        current == null || value >= current.value || now - current.timeNanos > maxAgeNanos;
        current = ranges.get(range)) {
      if (offered == null) {
        offered = new Exemplar(value, traceId, spanId, now);
      }
      if (ranges.compareAndSet(range, current, offered)) {
        return;
      }
    }
  }

  /** The exemplars at most {@code maxAge} old, in ascending order of value. */
  public List<Exemplar> exemplars() {
    long now = timeSource.nanoTime();
    List<Exemplar> out = new ArrayList<>();
    for (int i = 0; i < RANGES; i++) {
      Exemplar e = ranges.get(i);
      if (e != null && now - e.timeNanos <= maxAgeNanos) {
        out.add(e);
      }
    }
    return out;
  }
}
