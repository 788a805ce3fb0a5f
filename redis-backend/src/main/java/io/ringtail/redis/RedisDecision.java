package io.ringtail.redis;

import io.ringtail.decision.DecisionListener;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/** Shared plumbing of the Redis decisions: argument checks, ids, TTLs, listener calls. */
abstract class RedisDecision {
  private static final System.Logger LOG = System.getLogger(RedisDecision.class.getName());
  static final String CHUNK = "500";

  final RedisBackend backend;
  final String name;
  private final String idPrefix = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36) + ".";
  private final AtomicLong sequence = new AtomicLong();

  RedisDecision(RedisBackend backend, String name) {
    this.backend = backend;
    this.name = Checks.requireLength("name", name, 256);
  }

  static String requireKey(String key) {
    return Checks.requireNonEmpty("key", key);
  }

  /** A member id unique to this call across the fleet (random per instance, then a counter). */
  String nextId() {
    return idPrefix + Long.toString(sequence.getAndIncrement(), 36);
  }

  /**
   * PEXPIRE for state idle for {@code idleNanos} (positive) on the time base: rounded up, plus
   * 1 s; never overflows, up to {@code Long.MAX_VALUE} nanoseconds.
   */
  static String ttlMillis(long idleNanos) {
    long millis = idleNanos / 1_000_000 + (idleNanos % 1_000_000 == 0 ? 0 : 1);
    return Long.toString(millis + 1_000);
  }

  <D> void notifyListener(Optional<? extends DecisionListener<? super D>> listener, String key, D decision) {
    if (listener.isEmpty()) {
      return;
    }
    try {
      listener.get().onCrossing(key, decision);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "listener of " + name + " threw on key " + key, e);
    }
  }
}
