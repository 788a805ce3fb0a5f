package io.ringtail.decision;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.ringtail.TimeSource;
import io.ringtail.internal.Checks;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.function.Function;

/**
 * A bounded map from key to decision state: a Caffeine cache with a maximum size and expiry after
 * {@code idleExpiry} without access, on a ticker reading the decision's time source.
 *
 * <h2>Protocol</h2>
 *
 * <ol>
 *   <li>A decider gets the key's state, locks it and checks {@link KeyState#retired}; if set, it
 *       starts over (the cache now hands out a fresh state).
 *   <li>Eviction retires the state from Caffeine's eviction listener, which runs atomically with
 *       the removal and takes the state's lock: every decision on the old state finished before the
 *       removal, and the replacement is created after it. So no two live states exist for one key,
 *       and an evicted key's history is simply forgotten.
 *   <li>Maintenance (expiry, size eviction) runs on the calling thread: no background thread.
 * </ol>
 */
final class KeyedStates<S extends KeyState> {
  private static final System.Logger LOG = System.getLogger(KeyedStates.class.getName());

  /** Keys an in-process decision holds unless told otherwise. */
  static final long DEFAULT_MAXIMUM_KEYS = 1_000_000;

  private final Cache<String, S> cache;
  private final Function<String, S> factory;

  KeyedStates(
      long maximumKeys, long idleExpiryNanos, TimeSource timeSource, Function<String, S> factory) {
    Checks.requirePositive("maximumKeys", maximumKeys);
    this.factory = factory;
    this.cache =
        Caffeine.newBuilder()
            .maximumSize(maximumKeys)
            .expireAfterAccess(Duration.ofNanos(idleExpiryNanos))
            .ticker(timeSource::nanoTime)
            .executor(Runnable::run)
            .<String, S>evictionListener(
                (key, state, cause) -> {
                  if (state != null) {
                    state.retire();
                  }
                })
            .build();
  }

  /** The live state of {@code key}, created if absent; lock it and check {@code retired}. */
  S get(String key) {
    return cache.get(key, factory);
  }

  long estimatedKeys() {
    cache.cleanUp();
    return cache.estimatedSize();
  }

  static <D> void notify(DecisionListener<? super D> listener, String key, D decision) {
    try {
      listener.onCrossing(key, decision);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "decision listener threw for key " + key, e);
    }
  }
}
