package io.ringtail.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Which groups of one fleet histogram window this process merges: a lease per group in Redis, taken
 * with {@code SET NX PX} ({@link #tryLease}), renewed by its holder at every tick and halfway
 * between ({@link #renew}, {@code fleet_lease.lua}) and by each commit, and given up on close. A
 * lease lasts one publish interval (at least a second, so that a tick a few milliseconds late does
 * not lose it). The leases only spread the work; {@link FleetMerger}'s commits keep the counts
 * right whoever merges. Thread-safe.
 */
final class FleetLeases {
  private final ScriptRunner runner;
  private final FleetKeys keys;
  private final String token;
  private final long leaseMillis;
  private final AtomicIntegerArray holding = new AtomicIntegerArray(FleetKeys.GROUPS);

  /** Leases of {@code keys}' groups for this process, named {@code token} (its publisher id). */
  FleetLeases(ScriptRunner runner, FleetKeys keys, String token, long intervalNanos) {
    this.runner = runner;
    this.keys = keys;
    this.token = token;
    this.leaseMillis = Math.max(1_000, intervalNanos / 1_000_000L);
  }

  String token() {
    return token;
  }

  long leaseMillis() {
    return leaseMillis;
  }

  /** A commit's answer: whether it renewed this process's lease of group {@code g}. */
  void committed(int g, boolean renewed) {
    holding.set(g, renewed ? 1 : 0);
  }

  /** Whether this process holds group {@code g}'s lease, as far as it knows. */
  boolean holds(int g) {
    return holding.get(g) == 1;
  }

  /**
   * Takes group {@code g}'s lease if it is free ({@code SET NX PX}); completes with whether Redis
   * answered. This process merges the group from then on if Redis said OK.
   */
  CompletableFuture<Boolean> tryLease(int g) {
    return runner
        .call(
            RedisCall.command(
                CommandType.SET,
                new CommandArgs<>(StringCodec.UTF8)
                    .addKey(keys.lease(g))
                    .add(token)
                    .add("NX")
                    .add("PX")
                    .add(leaseMillis)))
        .handle(
            (reply, error) -> {
              if (error == null && !reply.isEmpty() && reply.get(0) != null) {
                holding.set(g, 1);
              }
              return error == null;
            });
  }

  /** Renews every lease this process holds; one that another process holds now is let go. */
  void renew() {
    for (int g = 0; g < FleetKeys.GROUPS; g++) {
      if (!holds(g)) {
        continue;
      }
      int group = g;
      runner
          .call(
              RedisCall.script(
                  HistogramScripts.LEASE,
                  new String[] {keys.lease(g)},
                  BinaryReply.utf8(new String[] {token, Long.toString(leaseMillis)})))
          .whenComplete(
              (reply, error) -> {
                if (error == null && Long.valueOf(0).equals(reply.get(0))) {
                  holding.set(group, 0);
                }
              });
    }
  }

  /**
   * Lets every lease go (a closing window): another process takes over at its next tick. The future
   * completes once Redis answered each.
   */
  CompletableFuture<Void> release() {
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (int g = 0; g < FleetKeys.GROUPS; g++) {
      if (holding.getAndSet(g, 0) == 1) {
        calls.add(
            runner.call(
                RedisCall.script(
                    HistogramScripts.LEASE,
                    new String[] {keys.lease(g)},
                    BinaryReply.utf8(new String[] {token, "0"}))));
      }
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }
}
