package io.ringtail.redis;

import io.ringtail.TimeSource;
import io.ringtail.redis.WindowProtocol.RecordReply;
import io.ringtail.redis.WindowProtocol.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The way from {@code record} to Redis, without a thread of its own (group commit): samples wait in
 * an outbox and are sent as batches of up to {@value #MAX_BATCH}, with at most {@value
 * #MAX_BATCHES_IN_FLIGHT} batches outstanding, so samples recorded while calls are in flight ride
 * in the next call and throughput grows with load. At most {@code maxInFlight} samples are
 * outstanding; a recording thread that finds none free waits for one up to the command timeout,
 * then hands its sample to the replay buffer. A batch whose call fails goes to the replay buffer,
 * unless Redis refused it for good ({@link RedisRejectedException}): then its samples are counted
 * as dropped; a batch that succeeds starts the replay of what is buffered. Every reply is counted
 * and sets the server-time estimate. Thread-safe.
 */
final class RecordPipeline {
  static final int MAX_BATCH = 256;
  static final int MAX_BATCHES_IN_FLIGHT = 4;

  /** Set while this thread drains, so a completion running on it does not drain recursively. */
  private static final ThreadLocal<boolean[]> DRAINING =
      ThreadLocal.withInitial(() -> new boolean[1]);

  private static final int REPLAY_BATCH = 200;
  private static final long FLUSH_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final ConcurrentLinkedQueue<Sample> outbox = new ConcurrentLinkedQueue<>();
  private final AtomicInteger batchesInFlight = new AtomicInteger();
  private final WindowProtocol protocol;
  private final TimeSource clientTime;
  private final ServerOffset serverTime;
  private final WindowCounters counters;
  private final int maxInFlight;
  private final Semaphore inFlight;
  private final long slotWaitNanos;
  private final ReplayBuffer<Sample> buffer;

  /**
   * @param clientTime the caller's time source, or null for the server's clock
   * @param slotWaitNanos how long a recording thread waits for a free in-flight slot
   */
  RecordPipeline(
      WindowProtocol protocol,
      TimeSource clientTime,
      ServerOffset serverTime,
      WindowCounters counters,
      int maxInFlight,
      int bufferCapacity,
      long slotWaitNanos) {
    this.protocol = protocol;
    this.clientTime = clientTime;
    this.serverTime = serverTime;
    this.counters = counters;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
    this.slotWaitNanos = slotWaitNanos;
    this.buffer =
        new ReplayBuffer<>(
            bufferCapacity,
            REPLAY_BATCH,
            this::replay,
            new ReplayBuffer.Counters() {
              @Override
              public void replayed(int n) {
                counters.replayed.add(n);
              }

              @Override
              public void dropped(int n, boolean wasKept) {
                counters.dropped.add(n);
              }
            });
  }

  void submit(Sample sample) {
    if (!acquireSlot()) {
      counters.failedCalls.increment();
      buffer.keep(sample);
      return;
    }
    outbox.add(sample);
    drain();
  }

  /** Samples waiting in the replay buffer now. */
  int buffered() {
    return buffer.size();
  }

  /** Starts replaying what is buffered, unless a replay is running. */
  void replayIfPending() {
    buffer.replayIfPending();
  }

  /**
   * Waits until {@code deadline} on {@code clock} at most for the in-flight samples to be answered
   * and the buffered ones replayed (retrying every 20 ms while Redis or the breaker refuses, or
   * while a background replay's batch awaits its reply); returns whether nothing is left pending.
   */
  boolean flush(long deadline, TimeSource clock) {
    awaitIdle(deadline - clock.nanoTime());
    while (!buffer.isEmpty() && deadline - clock.nanoTime() > 0) {
      boolean delivered;
      try {
        delivered = buffer.replayBatch(deadline - clock.nanoTime());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      if (!delivered) {
        LockSupport.parkNanos(
            Math.min(FLUSH_RETRY_NANOS, Math.max(0, deadline - clock.nanoTime())));
      }
    }
    return buffer.isEmpty() && awaitIdle(deadline - clock.nanoTime());
  }

  /** Waits, at most {@code waitNanos}, until no sample is in flight; returns whether none is. */
  boolean awaitIdle(long waitNanos) {
    try {
      if (inFlight.tryAcquire(maxInFlight, Math.max(waitNanos, 0), TimeUnit.NANOSECONDS)) {
        inFlight.release(maxInFlight);
        return true;
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean acquireSlot() {
    if (inFlight.tryAcquire()) {
      return true;
    }
    try {
      return inFlight.tryAcquire(slotWaitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void drain() {
    boolean[] draining = DRAINING.get();
    if (draining[0]) {
      return;
    }
    draining[0] = true;
    try {
      while (!outbox.isEmpty()) {
        int n = batchesInFlight.get();
        if (n >= MAX_BATCHES_IN_FLIGHT) {
          return;
        }
        if (!batchesInFlight.compareAndSet(n, n + 1)) {
          continue;
        }
        List<Sample> batch = new ArrayList<>(Math.min(MAX_BATCH, outbox.size()));
        for (Sample s; batch.size() < MAX_BATCH && (s = outbox.poll()) != null; ) {
          batch.add(s);
        }
        if (batch.isEmpty()) {
          batchesInFlight.decrementAndGet();
          continue;
        }
        send(batch);
      }
    } finally {
      draining[0] = false;
    }
  }

  /** A live batch: timed by the caller's readings (newest as now, skew-guarded) or by Redis. */
  private void send(List<Sample> batch) {
    Long now = null;
    if (clientTime != null) {
      now = batch.stream().mapToLong(Sample::micros).max().getAsLong();
    }
    counted(protocol.record(batch, now, clientTime != null, true))
        .whenComplete(
            (reply, error) -> {
              if (error != null && RedisErrors.unwrap(error) instanceof RedisRejectedException) {
                counters.dropped.add(batch.size());
              } else if (error != null) {
                batch.forEach(buffer::keep);
              }
              batchesInFlight.decrementAndGet();
              inFlight.release(batch.size());
              drain();
              if (error == null) {
                buffer.replayIfPending();
              }
            });
  }

  /** A buffered batch: every sample keeps the time it was recorded at; no skew guard. */
  private CompletableFuture<RecordReply> replay(List<Sample> batch) {
    Long now = clientTime == null ? null : Math.floorDiv(clientTime.nanoTime(), 1000L);
    return counted(protocol.record(batch, now, true, false));
  }

  private CompletableFuture<RecordReply> counted(CompletableFuture<RecordReply> call) {
    return call.whenComplete(
        (reply, error) -> {
          if (error != null) {
            counters.failedCalls.increment();
          } else {
            serverTime.adopt(reply.serverMicros());
            counters.count(reply);
          }
        });
  }
}
