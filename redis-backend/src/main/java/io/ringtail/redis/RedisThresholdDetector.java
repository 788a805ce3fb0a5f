package io.ringtail.redis;

import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.internal.Checks;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link ThresholdDetector} whose events live in Redis, decided by threshold.lua. Events that
 * arrive while Redis cannot answer are decided by the backend's {@link OutagePolicy} and kept in
 * a bounded buffer, replayed (idempotently, by event id) after Redis answers again. The first
 * time a key overflows {@code maxEventsPerKey} (fleet-wide, while the key is held) a WARNING
 * with {@value RedisRollingWindow#CARDINALITY_CAP_WARNING} names it.
 */
final class RedisThresholdDetector extends RedisDecision implements ThresholdDetector {
  private static final ThresholdDecision.Outcome[] OUTCOMES = {
      ThresholdDecision.Outcome.COUNTED, ThresholdDecision.Outcome.DUPLICATE, ThresholdDecision.Outcome.EXPIRED};
  private static final System.Logger LOG = System.getLogger(RedisThresholdDetector.class.getName());
  private final ThresholdConfig config;
  private final String window;
  private final String threshold;
  private final String cap;
  private final String ttl;
  private final String cooldown;
  private final LinkedBlockingDeque<Event> pending;
  private final AtomicBoolean replaying = new AtomicBoolean();

  RedisThresholdDetector(RedisBackend backend, String name, ThresholdConfig config) {
    super(backend, name);
    this.config = config;
    requireWindow("threshold detector", config.window());
    this.window = Long.toString(config.windowNanos());
    this.threshold = Integer.toString(config.threshold());
    this.cap = Integer.toString(config.maxEventsPerKey());
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
    this.cooldown = Long.toString(config.listenerCooldown().toNanos());
    this.pending = new LinkedBlockingDeque<>(Math.max(1, backend.eventBufferCapacity));
  }

  @Override
  public ThresholdDecision record(String key, String eventId, long eventTimeNanos) {
    requireKey(key);
    Checks.requireNonEmpty("eventId", eventId);
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, "te", "ti", "tm", "tp");
    String[] args = {Long.toString(eventTimeNanos >>> 32), Long.toString(eventTimeNanos & 0xFFFF_FFFFL),
        window, threshold, cap, eventId, ttl, cooldown, CHUNK};
    List<Object> reply;
    try {
      reply = backend.runner.runSync(Scripts.THRESHOLD, keys, args);
    } catch (RedisUnavailableException e) {
      int n = config.threshold();
      ThresholdDecision answer = backend.onOutage(e,
          () -> new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, 0, n, false),
          () -> new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, n, n, false));
      backend.eventsBuffered.increment();
      if (backend.eventBufferCapacity == 0 || !pending.offerLast(new Event(key, keys, args))) {
        backend.eventsBuffered.decrement();
        backend.eventsDropped.increment();
      }
      return answer;
    }
    ThresholdDecision d = decision(reply);
    if (reply.size() > 4 && (Long) reply.get(4) == 1) {
      LOG.log(System.Logger.Level.WARNING, RedisRollingWindow.CARDINALITY_CAP_WARNING + " threshold detector "
          + name + " key " + key + " holds more than " + config.maxEventsPerKey()
          + " events within its window: keeping the newest (counts saturate, firing stays exact)");
    }
    if ((Long) reply.get(3) == 1) {
      notifyListener(config.listener(), key, d);
    }
    replayIfPending();
    return d;
  }

  private ThresholdDecision decision(List<Object> reply) {
    return new ThresholdDecision(OUTCOMES[((Long) reply.get(0)).intValue()],
        ((Long) reply.get(1)).intValue(), config.threshold(), (Long) reply.get(2) == 1);
  }

  /**
   * Replays, one by one and asynchronously, the events that arrived while Redis could not answer
   * (in arrival order, with their own times and ids, so a replay is idempotent); a crossing they
   * cause notifies the listener. Stops at the first failure; the next successful call resumes.
   */
  private void replayIfPending() {
    if (pending.isEmpty() || !replaying.compareAndSet(false, true)) {
      return;
    }
    Event next = pending.pollFirst();
    if (next == null) {
      replaying.set(false);
      return;
    }
    backend.runner.run(Scripts.THRESHOLD, next.keys, next.args).whenComplete((reply, error) -> {
      if (error == null) {
        backend.eventsBuffered.decrement();
        backend.eventsReplayed.increment();
        if ((Long) reply.get(3) == 1) {
          notifyListener(config.listener(), next.key, decision(reply));
        }
        replaying.set(false);
        replayIfPending();
      } else {
        if (ScriptRunner.unwrap(error) instanceof RedisRejectedException || !pending.offerFirst(next)) {
          backend.eventsBuffered.decrement();
          backend.eventsDropped.increment();
        }
        replaying.set(false);
      }
    });
  }

  private record Event(String key, String[] keys, String[] args) {}

  @Override
  public ThresholdConfig config() {
    return config;
  }
}
