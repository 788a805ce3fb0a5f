package io.ringtail.redis;

import io.ringtail.keyed.ThresholdConfig;
import io.ringtail.keyed.ThresholdDecision;
import io.ringtail.keyed.ThresholdDetector;
import java.util.List;

/** A {@link ThresholdDetector} whose events live in Redis, decided by threshold.lua. */
final class RedisThresholdDetector extends RedisDecision implements ThresholdDetector {
  private static final ThresholdDecision.Outcome[] OUTCOMES = {
      ThresholdDecision.Outcome.COUNTED, ThresholdDecision.Outcome.DUPLICATE, ThresholdDecision.Outcome.EXPIRED};
  private final ThresholdConfig config;
  private final String window;
  private final String threshold;
  private final String cap;
  private final String ttl;
  private final String cooldown;

  RedisThresholdDetector(RedisBackend backend, String name, ThresholdConfig config) {
    super(backend, name);
    this.config = config;
    this.window = Decimal64.of(config.windowNanos());
    this.threshold = Integer.toString(config.threshold());
    this.cap = Integer.toString(config.maxEventsPerKey());
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
    this.cooldown = Decimal64.of(config.listenerCooldown().toNanos());
  }

  @Override
  public ThresholdDecision record(String key, String eventId, long eventTimeNanos) {
    requireKey(key);
    if (eventId == null || eventId.isEmpty()) {
      throw new IllegalArgumentException("eventId must be non-empty, but was " + (eventId == null ? "null" : "\"\""));
    }
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, "te", "ti", "tm");
    List<Object> reply;
    try {
      reply = backend.runner.runSync(Scripts.THRESHOLD, keys, new String[] {
          Decimal64.time(eventTimeNanos), window, threshold, cap, eventId, ttl, cooldown, CHUNK});
    } catch (RedisUnavailableException e) {
      int n = config.threshold();
      return backend.onOutage(e, () -> new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, 0, n, false),
          () -> new ThresholdDecision(ThresholdDecision.Outcome.COUNTED, n, n, false));
    }
    ThresholdDecision d = new ThresholdDecision(OUTCOMES[((Long) reply.get(0)).intValue()],
        ((Long) reply.get(1)).intValue(), config.threshold(), (Long) reply.get(2) == 1);
    if ((Long) reply.get(3) == 1) {
      notifyListener(config.listener(), key, d);
    }
    return d;
  }

  @Override
  public ThresholdConfig config() {
    return config;
  }
}
