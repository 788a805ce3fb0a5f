package io.ringtail.benchmarks.report;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code SLOWLOG} says about the library's script calls: the SHA-1 it calls a script by, and
 * the server time of the calls on given keys. Each reading logs every command while it lasts.
 * Stateless; use one connection from one thread.
 */
final class ScriptSlowlog {
  private ScriptSlowlog() {}

  /**
   * The SHA-1 of the script the library runs by EVALSHA on {@code key}, read from SLOWLOG (every
   * command logged) around two runs of {@code call}: the second finds the script loaded, so its
   * EVALSHA succeeds whatever the first did. A report replays the library's own script by it.
   */
  static String sha(RedisCommands<String, String> redis, String key, Runnable call) {
    redis.configSet("slowlog-log-slower-than", "0");
    redis.slowlogReset();
    call.run();
    call.run();
    String sha = null;
    for (Object entry : redis.slowlogGet(Integer.MAX_VALUE)) {
      List<?> command = (List<?>) ((List<?>) entry).get(3);
      if (sha == null
          && command.size() > 3
          && "EVALSHA".equalsIgnoreCase(String.valueOf(command.get(0)))
          && key.equals(String.valueOf(command.get(3)))) {
        sha = String.valueOf(command.get(1));
      }
    }
    redis.configSet("slowlog-log-slower-than", "10000");
    if (sha == null) {
      throw new IllegalStateException("the library ran no script on " + key);
    }
    return sha;
  }

  /**
   * Server-side durations (µs, from SLOWLOG) of the snapshot script calls on each window's first
   * key.
   */
  static long[][] serverMicros(
      RedisCommands<String, String> redis, String sha, String smallKey, String largeKey) {
    List<Long> small = new ArrayList<>();
    List<Long> large = new ArrayList<>();
    for (Object entry : redis.slowlogGet(Integer.MAX_VALUE)) {
      List<?> e = (List<?>) entry;
      List<?> command = (List<?>) e.get(3);
      if (command.size() > 3 && sha.equals(String.valueOf(command.get(1)))) {
        String key = String.valueOf(command.get(3));
        (key.equals(smallKey) ? small : key.equals(largeKey) ? large : new ArrayList<Long>())
            .add((Long) e.get(2));
      }
    }
    return new long[][] {
      small.stream().mapToLong(Long::longValue).toArray(),
      large.stream().mapToLong(Long::longValue).toArray()
    };
  }
}
