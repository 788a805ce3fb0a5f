package io.ringtail.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A board of small text states in Redis that every process of a fleet reads: the process that owns
 * a piece of fleet-wide work (a key's alerts, evaluated once for the fleet) posts its state there,
 * and any other process shows it. One hash per board ({@code <prefix>:board:{<name>}}), its entries
 * named by the poster; the board expires {@code ttl} after its last post, so a fleet that stopped
 * leaves nothing behind. An entry stays until it is posted again or the board expires: a poster
 * that stops owning an entry leaves its last state for the next owner to overwrite.
 *
 * <p>Every call waits at most the backend's command timeout. Thread-safe.
 */
public final class StateBoard {
  private static final int MAXIMUM_VALUE_CHARS = 4096;

  private final ScriptRunner runner;
  private final String key;
  private final long ttlMillis;

  StateBoard(RedisBackend backend, String name, Duration ttl) {
    Checks.requireLength("name", name, 1024);
    Checks.requireNonNull("ttl", ttl);
    if (ttl.isNegative() || ttl.toMillis() < 1) {
      throw Checks.invalid("ttl", "at least a millisecond", ttl);
    }
    this.runner = backend.runner;
    this.key = backend.keyPrefix + ":board:{" + DecisionKeys.escape(name) + "}";
    this.ttlMillis = ttl.toMillis();
  }

  /**
   * Posts {@code entries} (name to state, each state at most 4,096 characters) and restarts the
   * board's time to live. Nothing is posted for an empty map.
   *
   * @throws IllegalArgumentException if an entry's name is empty or its state too long
   * @throws RedisUnavailableException if Redis does not confirm the post in time (it may still
   *     land, as any write Redis received)
   */
  public void post(Map<String, String> entries) {
    Checks.requireNonNull("entries", entries);
    if (entries.isEmpty()) {
      return;
    }
    CommandArgs<String, String> hset = new CommandArgs<>(StringCodec.UTF8).addKey(key);
    for (Map.Entry<String, String> e : entries.entrySet()) {
      Checks.requireNonEmpty("entry name", e.getKey());
      Checks.requireLength("state of " + e.getKey(), e.getValue(), MAXIMUM_VALUE_CHARS);
      hset.add(e.getKey()).add(e.getValue());
    }
    List<CompletableFuture<List<Object>>> calls = new ArrayList<>(2);
    runner.batched(
        () -> {
          calls.add(runner.call(RedisCall.write(CommandType.HSET, hset, key)));
          calls.add(
              runner.call(
                  RedisCall.command(
                      CommandType.PEXPIRE,
                      new CommandArgs<>(StringCodec.UTF8).addKey(key).add(ttlMillis))));
        });
    RedisErrors.await(
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)), runner.timeoutNanos());
  }

  /**
   * Every entry of the board now, by name.
   *
   * @throws RedisUnavailableException if Redis cannot answer in time
   */
  public Map<String, String> read() {
    List<Object> reply =
        RedisErrors.await(
            runner.call(RedisCall.command(CommandType.HGETALL, key)), runner.timeoutNanos());
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      out.put(BinaryReply.text(reply.get(i)), BinaryReply.text(reply.get(i + 1)));
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public String toString() {
    return "StateBoard[" + key + ", ttl=" + ttlMillis + " ms]";
  }
}
