package io.ringtail.benchmarks.report;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What the fleet reports read of their {@code redis-server}: the CPU seconds its process has used
 * ({@code INFO cpu}) and the memory of the keys under a pattern ({@code SCAN} and {@code MEMORY
 * USAGE}). Stateless.
 */
final class ServerReadings {
  private ServerReadings() {}

  /** User plus system CPU seconds of the server process so far. */
  static double cpuSeconds(RedisCommands<String, String> redis) {
    double total = 0;
    for (String line : redis.info("cpu").split("\r?\n")) {
      if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
        total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return total;
  }

  /** Bytes of every key matching {@code pattern}; their number goes to {@code keyCount[0]}. */
  static long memoryOf(RedisCommands<String, String> redis, String pattern, long[] keyCount) {
    long bytes = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page =
          redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
      for (String key : page.getKeys()) {
        Long used = redis.memoryUsage(key);
        if (used != null) {
          bytes += used;
          keyCount[0]++;
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
    return bytes;
  }
}
