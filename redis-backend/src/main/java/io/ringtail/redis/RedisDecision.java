package io.ringtail.redis;

import io.ringtail.decision.DecisionListener;
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
    if (name == null || name.isEmpty() || name.length() > 256) {
      throw new IllegalArgumentException("name must be 1 to 256 characters, but was "
          + (name == null ? "null" : "\"" + name + "\""));
    }
    this.name = name;
  }

  static String requireKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must be non-empty, but was " + (key == null ? "null" : "\"\""));
    }
    return key;
  }

  /** A member id unique to this call across the fleet (random per instance, then a counter). */
  String nextId() {
    return idPrefix + Long.toString(sequence.getAndIncrement(), 36);
  }

  /** PEXPIRE for state idle for {@code idleNanos} on the time base: rounded up, plus 1 s. */
  static String ttlMillis(long idleNanos) {
    return Long.toString(Math.addExact(Math.floorDiv(idleNanos + 999_999, 1_000_000), 1_000));
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
