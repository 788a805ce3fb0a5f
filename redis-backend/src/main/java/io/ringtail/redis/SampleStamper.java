package io.ringtail.redis;

import io.ringtail.TimeSource;
import io.ringtail.redis.WindowProtocol.Sample;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives a recorded value what Redis needs to keep it once: an event id (the caller's, or this
 * window object's random prefix and a sequence number) and a time in microseconds on the window's
 * time base (the caller's reading, or the estimate of the server's clock). Thread-safe.
 */
final class SampleStamper {
  /** Readings at or beyond ±2<sup>53</sup> µs lose precision in the script's doubles. */
  private static final long MAX_MICROS = 1L << 53;

  private final TimeSource clientTime;
  private final ServerOffset serverTime;
  private final String idPrefix = RandomIds.base36(6) + ".";
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param clientTime the caller's time source, or null for the server's clock
   */
  SampleStamper(TimeSource clientTime, ServerOffset serverTime) {
    this.clientTime = clientTime;
    this.serverTime = serverTime;
  }

  /**
   * The sample of {@code value} under {@code eventId} (null for a fresh id) at {@code timeNanos} of
   * the caller's time source (ignored with the server's clock), or null if that reading is out of
   * range.
   */
  Sample stamp(long value, String eventId, long timeNanos) {
    String id =
        eventId != null ? eventId : idPrefix + Long.toString(sequence.getAndIncrement(), 36);
    long micros;
    if (clientTime != null) {
      micros = Math.floorDiv(timeNanos, 1000L);
      if (micros >= MAX_MICROS || micros <= -MAX_MICROS) {
        return null;
      }
    } else {
      micros = serverTime.micros();
    }
    return Sample.of(value, id, micros);
  }
}
