package io.ringtail.redis;

import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import io.ringtail.redis.DecisionLayout.Arg;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link SumCap} whose amounts live in Redis as exact integer units of 10^-scale, decided by
 * sum_cap.lua: one string per key, a ring of entries in time order, each carrying the key's running
 * total before it (64-bit, as two 32-bit halves: no floating point), so the total in the window is
 * a difference of two of them and no call walks the entries. Thread-safe.
 */
final class RedisSumCap extends RedisDecision<SumDecision> implements SumCap {
  static final String[] KEY_SUFFIXES = {"sc"};
  private final SumCapConfig config;

  /**
   * sum_cap.lua's ARGS (deadline, time, window, cap, amount, exceeds, max entries, cooldown), the
   * time, the amount and exceeds left for each call.
   */
  private final PackedArgs args;

  private final PackedArgs exceedingArgs;
  private final String ttl;

  RedisSumCap(RedisBackend backend, String name, SumCapConfig config) {
    super(backend, name);
    requireWindow("sum cap", config.window());
    this.config = config;
    this.args =
        DecisionLayout.SUM_CAP
            .args()
            .number(Arg.WINDOW, config.windowNanos())
            .halves(Arg.CAP, config.capUnits())
            .number(Arg.MAX_ENTRIES, config.maxEntriesPerKey())
            .number(Arg.COOLDOWN, cooldownNanos(config.listenerCooldown()));
    this.exceedingArgs =
        DecisionLayout.SUM_CAP
            .args()
            .number(Arg.WINDOW, config.windowNanos())
            .halves(Arg.CAP, config.capUnits())
            .number(Arg.EXCEEDS, 1)
            .number(Arg.MAX_ENTRIES, config.maxEntriesPerKey())
            .number(Arg.COOLDOWN, cooldownNanos(config.listenerCooldown()));
    this.ttl = ttlMillis(config.idleExpiry().toNanos());
  }

  @Override
  boolean denies(SumDecision decision) {
    return !decision.allowed();
  }

  @Override
  public SumDecision tryAdd(String key, BigDecimal amount, long timeNanos) {
    requireKey(key);
    long units = config.toUnits(amount);
    boolean exceeds = units == Long.MAX_VALUE;
    BigDecimal scaled = exceeds ? config.atScale(amount) : config.fromUnits(units);
    String[] keys = DecisionKeys.of(backend.keyPrefix, name, key, KEY_SUFFIXES);
    DecisionReply.SumCap reply;
    try {
      reply =
          DecisionReply.SumCap.of(
              decide(
                  Scripts.SUM_CAP,
                  keys,
                  exceeds
                      ? exceedingArgs.with(Arg.TIME, timeNanos)
                      : args.with(Arg.TIME, timeNanos, Arg.AMOUNT, units),
                  ttl));
    } catch (RedisUnavailableException e) {
      BigDecimal capValue = config.cap();
      if (exceeds) {
        // an amount above the cap is refused whatever the policy: no window could hold it
        Supplier<SumDecision> refused =
            () ->
                new SumDecision(
                    false,
                    true,
                    scaled,
                    config.fromUnits(0),
                    capValue,
                    Optional.empty(),
                    Duration.ZERO);
        return onOutage(e, refused, refused);
      }
      return onOutage(
          e,
          () ->
              new SumDecision(
                  true, false, scaled, scaled, capValue, Optional.of(Duration.ZERO), Duration.ZERO),
          () ->
              new SumDecision(
                  false,
                  false,
                  scaled,
                  config.fromUnits(0),
                  capValue,
                  Optional.of(backend.outageRetryAfter),
                  Duration.ZERO));
    }
    long retryNanos = reply.retryAfterNanos();
    Optional<Duration> retry =
        retryNanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(retryNanos));
    SumDecision d =
        new SumDecision(
            reply.allowed(),
            exceeds,
            scaled,
            config.fromUnits(reply.totalUnits()),
            config.cap(),
            retry,
            Duration.ofNanos(reply.freesInNanos()));
    if (reply.notifies()) {
      notifyListener(config.listener(), key, d);
    }
    return counted(d);
  }

  @Override
  public SumCapConfig config() {
    return config;
  }
}
