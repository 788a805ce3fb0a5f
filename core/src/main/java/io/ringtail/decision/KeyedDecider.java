package io.ringtail.decision;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The skeleton the in-process keyed decisions share: a decision for a key runs under its state's
 * monitor (starting over on a state retired by eviction, see {@link KeyedStates}), and a crossing
 * it marks is delivered to the listener afterwards, outside the lock, at most once per listener
 * cooldown. Thread-safe.
 *
 * @param <S> the per-key state
 * @param <A> what a decision takes besides the key, a quantity and a time
 * @param <D> the decision type
 */
abstract class KeyedDecider<S extends KeyState, A, D> implements CountsDecisions {
  /** The window in nanoseconds. */
  final long window;

  private final DecisionListener<? super D> listener;
  private final long cooldown;
  private final KeyedStates<S> states;
  private final LongAdder allowed = new LongAdder();
  private final LongAdder denied = new LongAdder();

  KeyedDecider(DecisionWindowSettings<D> settings, long maximumKeys, Function<String, S> factory) {
    this.window = settings.windowNanos();
    this.listener = settings.listenerOrNull();
    this.cooldown = settings.listenerCooldownNanos();
    this.states =
        new KeyedStates<>(maximumKeys, settings.idleExpiryNanos(), settings.timeSource(), factory);
  }

  /** Decides for {@code key} under its state's lock, then delivers what the decision marked. */
  final D decide(String key, A arg, long quantity, long timeNanos) {
    while (true) {
      S state = states.get(key);
      D decision;
      int pending;
      synchronized (state) {
        if (state.retired) {
          continue;
        }
        try {
          decision = decideLocked(state, arg, quantity, timeNanos);
        } finally {
          pending = state.takePending();
        }
      }
      (denies(decision) ? denied : allowed).increment();
      if (pending != 0) {
        afterUnlock(key, decision, pending);
      }
      return decision;
    }
  }

  /**
   * The decision, made under the state's monitor on a live state; {@code quantity} is the amount in
   * units for a cap, 1 for a request or an event.
   */
  abstract D decideLocked(S state, A arg, long quantity, long timeNanos);

  /** Whether {@code decision} denies (a limiter, a cap) or fires (a detector). */
  abstract boolean denies(D decision);

  @Override
  public final DecisionCounts decisionCounts() {
    return new DecisionCounts(allowed.sum(), denied.sum(), 0, 0);
  }

  /**
   * Acts on the pending bits a decision set ({@link KeyState#markPending}), outside the lock;
   * subclasses that set bits of their own handle them and call this.
   */
  void afterUnlock(String key, D decision, int pending) {
    if ((pending & KeyState.NOTIFY) != 0) {
      KeyedStates.notify(listener, key, decision);
    }
  }

  /**
   * For limiters, under the lock: records whether the key now denies and marks a notification when
   * it goes from allowed to denied outside the cooldown. No work without a listener.
   */
  final void trackDenial(S state, boolean denied, long timeNanos) {
    if (listener != null) {
      if (denied && !state.alarmed() && state.admitNotification(timeNanos, cooldown)) {
        state.markPending(KeyState.NOTIFY);
      }
      state.alarmed(denied);
    }
  }

  /** For detectors, under the lock: marks a notification for a crossing outside the cooldown. */
  final void trackCrossing(S state, boolean crossed, long timeNanos) {
    if (crossed && listener != null && state.admitNotification(timeNanos, cooldown)) {
      state.markPending(KeyState.NOTIFY);
    }
  }

  long estimatedKeys() {
    return states.estimatedKeys();
  }

  S stateOf(String key) {
    return states.get(key);
  }
}
