package io.ringtail.benchmarks.report;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;

/**
 * The script calls ({@code FCALL}, {@code EVALSHA}, {@code EVAL}) of a phase and their server
 * microseconds, round by round: {@code INFO commandstats} is reset when it starts and after every
 * round. The machine's noise only ever adds time, and it comes in bursts that a few rounds absorb,
 * so a row shows the median round and the best beside the mean of all calls.
 */
final class ScriptCallRounds {
  private final RedisCommands<String, String> redis;
  private final List<Double> perCall = new ArrayList<>();
  long calls;
  private long usec;

  ScriptCallRounds(RedisCommands<String, String> redis) {
    this.redis = redis;
    redis.configResetstat();
  }

  void end() {
    long roundCalls = 0;
    long roundUsec = 0;
    for (String line : redis.info("commandstats").split("\\r?\\n")) {
      if (line.startsWith("cmdstat_fcall:")
          || line.startsWith("cmdstat_evalsha:")
          || line.startsWith("cmdstat_eval:")) {
        for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
          String[] kv = field.split("=");
          if (kv[0].equals("calls")) {
            roundCalls += Long.parseLong(kv[1]);
          } else if (kv[0].equals("usec")) {
            roundUsec += Long.parseLong(kv[1]);
          }
        }
      }
    }
    redis.configResetstat();
    calls += roundCalls;
    usec += roundUsec;
    if (roundCalls > 0) {
      perCall.add((double) roundUsec / roundCalls);
    }
  }

  double mean() {
    return calls == 0 ? 0.0 : (double) usec / calls;
  }

  double median() {
    List<Double> sorted = perCall.stream().sorted().toList();
    return sorted.isEmpty() ? 0.0 : sorted.get(sorted.size() / 2);
  }

  double best() {
    return perCall.stream().mapToDouble(Double::doubleValue).min().orElse(0.0);
  }
}
