package io.ringtail.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What could not reach Redis, kept in arrival order for an idempotent replay (every entry carries
 * its own time and id): a bounded deque, one replay at a time, in batches. A replay starts after a
 * successful call ({@link #replayIfPending}) and chains batch after batch until the buffer is empty
 * or a batch fails; a failed batch goes back to the front and waits for the next success (no retry
 * loop). A batch Redis refused for good ({@link RedisRejectedException}) is dropped, never kept for
 * another try. Thread-safe; starts no thread.
 *
 * @param <E> what one entry holds
 */
final class ReplayBuffer<E> {
  /** Sends one batch; the future fails if Redis did not take it. */
  interface Sender<E> {
    CompletableFuture<?> send(List<E> batch);
  }

  /** Told where entries went; called on whichever thread moved them. */
  interface Counters {
    /** {@code n} entries were taken into the buffer. */
    default void kept(int n) {}

    /** {@code n} entries were delivered by a replay. */
    void replayed(int n);

    /**
     * {@code n} entries are lost: they found the buffer full ({@code wasKept} false) or could not
     * go back after a failed replay ({@code wasKept} true).
     */
    void dropped(int n, boolean wasKept);
  }

  private final LinkedBlockingDeque<E> deque;
  private final boolean keepsNothing;
  private final int batchSize;
  private final Sender<E> sender;
  private final Counters counters;
  private final AtomicBoolean replaying = new AtomicBoolean();

  /** A buffer of {@code capacity} entries (0 keeps none) replayed {@code batchSize} at a time. */
  ReplayBuffer(int capacity, int batchSize, Sender<E> sender, Counters counters) {
    this.deque = new LinkedBlockingDeque<>(Math.max(1, capacity));
    this.keepsNothing = capacity == 0;
    this.batchSize = batchSize;
    this.sender = sender;
    this.counters = counters;
  }

  /** Keeps {@code entry} for replay, or counts it as dropped if the buffer is full. */
  void keep(E entry) {
    if (!keepsNothing && deque.offerLast(entry)) {
      counters.kept(1);
    } else {
      counters.dropped(1, false);
    }
  }

  int size() {
    return deque.size();
  }

  /**
   * Whether nothing is left to deliver: no entry buffered and no replayed batch awaiting its reply
   * (a batch in flight has left the deque but is not delivered until Redis answers).
   */
  boolean isEmpty() {
    return deque.isEmpty() && !replaying.get();
  }

  /** Starts replaying in the background unless the buffer is empty or a replay is running. */
  void replayIfPending() {
    if (!deque.isEmpty() && replaying.compareAndSet(false, true)) {
      sendBatch()
          .whenComplete(
              (delivered, error) -> {
                replaying.set(false);
                if (delivered) {
                  replayIfPending();
                }
              });
    }
  }

  /**
   * Replays one batch and waits for it, at most {@code waitNanos}. Returns whether a batch left the
   * buffer, delivered or refused for good and dropped (false if none was pending, another replay
   * was running, or the batch failed and went back).
   */
  boolean replayBatch(long waitNanos) throws InterruptedException {
    if (!replaying.compareAndSet(false, true)) {
      return false;
    }
    try {
      return sendBatch().get(Math.max(waitNanos, 0), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } finally {
      replaying.set(false);
    }
  }

  /**
   * Completes true if a batch left the buffer (delivered, or refused for good and dropped), false
   * if there was nothing to send or it failed and went back.
   */
  private CompletableFuture<Boolean> sendBatch() {
    List<E> batch = new ArrayList<>(batchSize);
    deque.drainTo(batch, batchSize);
    if (batch.isEmpty()) {
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<?> sent;
    try {
      sent = sender.send(batch);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handle(
        (reply, error) -> {
          if (error == null) {
            counters.replayed(batch.size());
            return true;
          }
          if (RedisErrors.unwrap(error) instanceof RedisRejectedException) {
            counters.dropped(batch.size(), true);
            return true;
          }
          for (int i = batch.size() - 1; i >= 0; i--) {
            if (!deque.offerFirst(batch.get(i))) {
              counters.dropped(1, true);
            }
          }
          return false;
        });
  }
}
