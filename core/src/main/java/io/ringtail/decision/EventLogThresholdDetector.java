package io.ringtail.decision;

import io.ringtail.decision.ThresholdDecision.Outcome;
import io.ringtail.internal.Checks;
import java.util.Arrays;

/**
 * The in-process {@link ThresholdDetector}: per key, the held events' times and ids in two parallel
 * arrays sorted by time.
 *
 * <p>An in-order event is appended; a late one is inserted at its place; expired events are dropped
 * from the front, and past {@code maxEventsPerKey} the oldest is dropped. Duplicate detection scans
 * the held ids (comparing cached hash codes first). An event therefore costs O(k) for the k events
 * held (at most {@code maxEventsPerKey}, the threshold by default), and a key holds 12 bytes per
 * held event plus the id strings, which it keeps alive. The first time a key overflows {@code
 * maxEventsPerKey} (a flood: a scanner, a brute force), a warning naming the key is logged through
 * {@link System.Logger}, once per key while it is held.
 */
final class EventLogThresholdDetector
    extends KeyedDecider<EventLogThresholdDetector.Events, String, ThresholdDecision>
    implements ThresholdDetector {
  static final int INITIAL_CAPACITY = 2;
  private static final System.Logger LOG = System.getLogger(ThresholdDetector.class.getName());

  /** A pending bit: this event was the key's first trim past maxEventsPerKey. */
  private static final int FIRST_TRIM = KeyState.FIRST_FREE_BIT;

  private final ThresholdConfig config;
  private final int threshold;
  private final int maxEvents;

  EventLogThresholdDetector(ThresholdConfig config, long maximumKeys) {
    super(
        config.settings(),
        maximumKeys,
        k -> new Events(Math.min(INITIAL_CAPACITY, config.maxEventsPerKey())));
    this.config = config;
    this.threshold = config.threshold();
    this.maxEvents = config.maxEventsPerKey();
  }

  @Override
  boolean denies(ThresholdDecision decision) {
    return decision.fired();
  }

  @Override
  public ThresholdDecision record(String key, String eventId, long eventTimeNanos) {
    Checks.requireNonEmpty("key", key);
    Checks.requireNonEmpty("eventId", eventId);
    return decide(key, eventId, 1, eventTimeNanos);
  }

  @Override
  ThresholdDecision decideLocked(Events events, String eventId, long one, long eventTimeNanos) {
    if (events.size > 0 && events.latest - eventTimeNanos >= window) {
      return new ThresholdDecision(Outcome.EXPIRED, events.size, threshold, false);
    }
    if (events.holds(
        eventId,
        events.size > 0 && events.latest - eventTimeNanos > 0
            ? events.latest - window
            : eventTimeNanos - window)) {
      return new ThresholdDecision(Outcome.DUPLICATE, events.size, threshold, false);
    }
    long latest =
        events.size == 0 || eventTimeNanos - events.latest > 0 ? eventTimeNanos : events.latest;
    events.latest = latest;
    events.dropUpTo(latest - window);
    int before = events.size;
    if (events.insert(eventId, eventTimeNanos, maxEvents) && !events.trimReported) {
      events.trimReported = true;
      events.markPending(FIRST_TRIM);
    }
    int after = events.size;
    boolean crossed = before < threshold && after >= threshold;
    ThresholdDecision decision = new ThresholdDecision(Outcome.COUNTED, after, threshold, crossed);
    trackCrossing(events, crossed, latest);
    return decision;
  }

  @Override
  void afterUnlock(String key, ThresholdDecision decision, int pending) {
    if ((pending & FIRST_TRIM) != 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "threshold key {0} holds more than {1} events within "
              + "its window: keeping the newest (counts saturate, firing stays exact)",
          key,
          maxEvents);
    }
    super.afterUnlock(key, decision, pending);
  }

  @Override
  public ThresholdConfig config() {
    return config;
  }

  /** Held events sorted by time, in {@code [0, size)}; guarded by its monitor. */
  static final class Events extends KeyState {
    long[] times;
    String[] ids;
    int size;

    /** The latest counted event time; meaningful while {@code size > 0}. */
    long latest;

    /** Whether this key's first trim past maxEventsPerKey was logged. */
    boolean trimReported;

    Events(int capacity) {
      times = new long[capacity];
      ids = new String[capacity];
    }

    /** Whether an event with this id timed after {@code cutoff} is held. */
    boolean holds(String id, long cutoff) {
      int hash = id.hashCode();
      for (int i = size - 1; i >= 0 && times[i] - cutoff > 0; i--) {
        String held = ids[i];
        if (held.hashCode() == hash && held.equals(id)) {
          return true;
        }
      }
      return false;
    }

    /** Drops every event at or before {@code cutoff}. */
    void dropUpTo(long cutoff) {
      int n = 0;
      while (n < size && times[n] - cutoff <= 0) {
        n++;
      }
      removeFirst(n);
    }

    /** Inserts in time order; returns whether an event was dropped to stay within {@code max}. */
    boolean insert(String id, long time, int max) {
      if (size == times.length && size < max) {
        int capacity = Math.min(max, Math.max(INITIAL_CAPACITY, size * 2));
        times = Arrays.copyOf(times, capacity);
        ids = Arrays.copyOf(ids, capacity);
      }
      boolean trimmed = false;
      int at = size;
      while (at > 0 && times[at - 1] - time > 0) {
        at--;
      }
      if (size == times.length) {
        if (at == 0) {
          return true; // older than every held event of a full key: it would be dropped at once
        }
        removeFirst(1);
        at--;
        trimmed = true;
      }
      System.arraycopy(times, at, times, at + 1, size - at);
      System.arraycopy(ids, at, ids, at + 1, size - at);
      times[at] = time;
      ids[at] = id;
      size++;
      return trimmed;
    }

    private void removeFirst(int n) {
      if (n == 0) {
        return;
      }
      System.arraycopy(times, n, times, 0, size - n);
      System.arraycopy(ids, n, ids, 0, size - n);
      Arrays.fill(ids, size - n, size, null);
      size -= n;
      if (size == 0 && times.length > INITIAL_CAPACITY) {
        times = new long[INITIAL_CAPACITY];
        ids = new String[INITIAL_CAPACITY];
      }
    }
  }
}
