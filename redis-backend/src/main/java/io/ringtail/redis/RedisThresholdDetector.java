package io.ringtail.redis;

import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.internal.Checks;
import io.ringtail.redis.DecisionLayout.Arg;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ThresholdDetector} whose events live in Redis, decided by threshold.lua. Events that
 * arrive while Redis cannot answer are decided by the backend's {@link OutagePolicy} and kept in a
 * bounded buffer, replayed (idempotently, by event id) after Redis answers again. The first time a
 * key overflows {@code maxEventsPerKey} (fleet-wide, while the key is held) a WARNING with {@value
 * RedisRollingWindow#CARDINALITY_CAP_WARNING} names it.
 */
final class RedisThresholdDetector extends RedisDecision<ThresholdDecision>
    implements ThresholdDetector {
  private static final System.Logger LOG = System.getLogger(RedisThresholdDetector.class.getName());

  /** Far past any server clock: a replayed event has no caller waiting for it. */
  private static final long NO_DEADLINE = PackedArgs.MAX_EXACT;

  private final ThresholdConfig config;
  private final PackedArgs args;
  private final String ttl;
  private final ReplayBuffer<Event> pending;

  RedisThresholdDetector(RedisBackend backend, String name, ThresholdConfig config) {
    super(backend, name);
    this.config = config;
    requireWindow("threshold detector", config.window());
    this.args =
        DecisionLayout.THRESHOLD
            .args()
            .number(Arg.WINDOW, config.windowNanos())
            .number(Arg.THRESHOLD, config.threshold())
            .number(Arg.MAX_EVENTS, config.maxEventsPerKey())
            .number(Arg.COOLDOWN, cooldownNanos(config.listenerCooldown()))
            .number(Arg.CHUNK, CHUNK);
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
    this.pending =
        new ReplayBuffer<>(
            backend.eventBufferCapacity,
            1,
            this::replay,
            new ReplayBuffer.Counters() {
              @Override
              public void kept(int n) {
                backend.eventsBuffered.add(n);
              }

              @Override
              public void replayed(int n) {
                backend.eventsBuffered.add(-n);
                backend.eventsReplayed.add(n);
              }

              @Override
              public void dropped(int n, boolean wasKept) {
                if (wasKept) {
                  backend.eventsBuffered.add(-n);
                }
                backend.eventsDropped.add(n);
              }
            });
  }

  @Override
  boolean denies(ThresholdDecision decision) {
    return decision.fired();
  }

  @Override
  public ThresholdDecision record(String key, String eventId, long eventTimeNanos) {
    requireKey(key);
    Checks.requireNonEmpty("eventId", eventId);
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, "te", "ti", "tm", "tp");
    byte[] packed = args.with(Arg.TIME, eventTimeNanos);
    DecisionReply.Threshold reply;
    try {
      reply = DecisionReply.Threshold.of(decide(Scripts.THRESHOLD, keys, packed, ttl, eventId));
    } catch (RedisUnavailableException e) {
      int n = config.threshold();
      ThresholdDecision answer =
          onOutage(
              e,
              () -> new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, 0, n, false),
              () -> new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, n, n, false));
      PackedArgs.deadline(packed, NO_DEADLINE);
      pending.keep(
          new Event(
              key,
              keys,
              new byte[][] {
                packed,
                ttl.getBytes(StandardCharsets.US_ASCII),
                eventId.getBytes(StandardCharsets.UTF_8)
              }));
      return answer;
    }
    ThresholdDecision d = decision(reply);
    if (reply.firstOverflow()) {
      LOG.log(
          System.Logger.Level.WARNING,
          RedisRollingWindow.CARDINALITY_CAP_WARNING
              + " threshold detector "
              + name
              + " key "
              + key
              + " holds more than "
              + config.maxEventsPerKey()
              + " events within its window: keeping the newest (counts saturate, firing stays exact)");
    }
    if (reply.notifies()) {
      notifyListener(config.listener(), key, d);
    }
    pending.replayIfPending();
    return counted(d);
  }

  /** The decision a reply holds. */
  private ThresholdDecision decision(DecisionReply.Threshold reply) {
    return new ThresholdDecision(
        reply.outcome(), reply.count(), config.threshold(), reply.crossed());
  }

  /**
   * Replays one event that arrived while Redis could not answer, with its own time and id (so a
   * replay is idempotent); a crossing it causes notifies the listener.
   */
  private CompletableFuture<?> replay(List<Event> batch) {
    Event next = batch.get(0);
    return backend
        .runner
        .call(RedisCall.script(Scripts.THRESHOLD, next.keys, next.args))
        .thenAccept(
            list -> {
              DecisionReply.Threshold reply = DecisionReply.Threshold.of((byte[]) list.get(0));
              if (reply.notifies()) {
                notifyListener(config.listener(), next.key, decision(reply));
              }
            });
  }

  private record Event(String key, String[] keys, byte[][] args) {}

  @Override
  public ThresholdConfig config() {
    return config;
  }
}
