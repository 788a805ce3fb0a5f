package io.ringtail.benchmarks.report;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What {@link FleetViewReport} reads of the server: CPU, commandstats, memory and leases. */
final class FleetViewRedis {
  private static final Pattern COMMANDSTAT =
      Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+),usec=(\\d+),");

  private FleetViewRedis() {}

  static double cpu(RedisCommands<String, String> redis) {
    String info = redis.info("cpu");
    return value(info, "used_cpu_sys") + value(info, "used_cpu_user");
  }

  /** The server's network bytes so far: in, out. */
  static double[] network(RedisCommands<String, String> redis) {
    String info = redis.info("stats");
    return new double[] {
      value(info, "total_net_input_bytes"), value(info, "total_net_output_bytes")
    };
  }

  /** The server's socket reads and writes processed so far: its I/O events. */
  static long[] events(RedisCommands<String, String> redis) {
    String info = redis.info("stats");
    return new long[] {
      (long) value(info, "total_reads_processed"), (long) value(info, "total_writes_processed")
    };
  }

  private static double value(String info, String name) {
    Matcher m = Pattern.compile(name + ":([0-9.]+)").matcher(info);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  static Map<String, long[]> commandstats(String commandstats) {
    Map<String, long[]> out = new HashMap<>();
    Matcher m = COMMANDSTAT.matcher(commandstats);
    while (m.find()) {
      out.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
    }
    return out;
  }

  /** The window's keys' memory: all of them, and its merged buckets alone. */
  static long[] memory(RedisCommands<String, String> redis, String name) {
    long all = 0;
    long buckets = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page =
          redis.scan(cursor, ScanArgs.Builder.matches("*" + name + "*").limit(1000));
      for (String key : page.getKeys()) {
        Long bytes = redis.memoryUsage(key);
        long b = bytes == null ? 0 : bytes;
        all += b;
        if (key.contains(":b:")) {
          buckets += b;
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
    return new long[] {all, buckets};
  }

  /** The bytes of the window's group summaries, all together ({@code STRLEN}). */
  static long summaryBytes(RedisCommands<String, String> redis, String name) {
    long bytes = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page =
          redis.scan(cursor, ScanArgs.Builder.matches("*" + name + "*:sm").limit(1000));
      for (String key : page.getKeys()) {
        bytes += redis.strlen(key);
      }
      cursor = page;
    } while (!cursor.isFinished());
    return bytes;
  }

  /** Every group's lease holder now. */
  static Map<String, String> leases(RedisCommands<String, String> redis, String name) {
    Map<String, String> out = new HashMap<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page =
          redis.scan(cursor, ScanArgs.Builder.matches("*" + name + "*:lease").limit(1000));
      for (String key : page.getKeys()) {
        out.put(key, redis.get(key));
      }
      cursor = page;
    } while (!cursor.isFinished());
    return out;
  }
}
