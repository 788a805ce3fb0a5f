package io.ringtail.redis;

import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@link SumCap} whose amounts live in Redis as exact integer units of 10^-scale, decided by
 * sum_cap.lua (totals kept with HINCRBY, compared as 20-digit decimals: no floating point).
 */
final class RedisSumCap extends RedisDecision implements SumCap {
  private final SumCapConfig config;
  private final String window;
  private final String cap;
  private final String maxEntries;
  private final String ttl;
  private final String cooldown;

  RedisSumCap(RedisBackend backend, String name, SumCapConfig config) {
    super(backend, name);
    this.config = config;
    this.window = Decimal64.of(config.windowNanos());
    this.cap = Decimal64.of(config.capUnits());
    this.maxEntries = Integer.toString(config.maxEntriesPerKey());
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
    this.cooldown = Decimal64.of(config.listenerCooldown().toNanos());
  }

  @Override
  public SumDecision tryAdd(String key, BigDecimal amount, long timeNanos) {
    requireKey(key);
    long units = config.toUnits(amount);
    boolean exceeds = units == Long.MAX_VALUE;
    BigDecimal scaled = exceeds ? amount.setScale(config.scale()) : config.fromUnits(units);
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, "se", "sm");
    List<Object> reply;
    try {
      reply = backend.runner.runSync(Scripts.SUM_CAP, keys, new String[] {Decimal64.time(timeNanos), window, cap,
          exceeds ? "X" : Decimal64.of(units), maxEntries, nextId(), ttl, cooldown, CHUNK});
    } catch (RedisUnavailableException e) {
      BigDecimal capValue = config.cap();
      if (exceeds) {
        return backend.onOutage(e,
            () -> new SumDecision(false, true, scaled, config.fromUnits(0), capValue, Optional.empty(), Duration.ZERO),
            () -> new SumDecision(false, true, scaled, config.fromUnits(0), capValue, Optional.empty(), Duration.ZERO));
      }
      return backend.onOutage(e,
          () -> new SumDecision(true, false, scaled, scaled, capValue, Optional.of(Duration.ZERO), Duration.ZERO),
          () -> new SumDecision(false, false, scaled, config.fromUnits(0), capValue,
              Optional.of(backend.outageRetryAfter), Duration.ZERO));
    }
    Optional<Duration> retry = "X".equals(reply.get(2)) ? Optional.empty() : Optional.of(Decimal64.duration(reply.get(2)));
    SumDecision d = new SumDecision((Long) reply.get(0) == 1, exceeds, scaled,
        config.fromUnits(Decimal64.parse(reply.get(1))), config.cap(), retry, Decimal64.duration(reply.get(3)));
    if ((Long) reply.get(4) == 1) {
      notifyListener(config.listener(), key, d);
    }
    return d;
  }

  @Override
  public SumCapConfig config() {
    return config;
  }
}
