package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The 64-bit arithmetic of the prelude decision.lua on a real server, against Java's long
 * arithmetic: sums and differences of halves modulo 2^64 across the 2^32 carry and borrow, the
 * unsigned order, and signed time differences exact below 2^53.
 */
@ExtendWith(RedisExtension.class)
class DecisionPreludeLuaTest {
  private static final String PROBE =
      """
      local ah, al, bh, bl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
      local sh, sl = sum(ah, al, bh, bl)
      local mh, ml = minus(ah, al, bh, bl)
      return {sh, sl, mh, ml, atMost(ah, al, bh, bl) and 1 or 0, num(offset(ah, al, bh, bl))}
      """;

  @Test
  void halvesArithmetic_matchesJavaLongs(RedisProcess server) {
    String script = LuaScript.load("decision.lua").body + PROBE;
    RedisClient client = RedisTestSupport.client();
    try (StatefulRedisConnection<String, String> c = RedisTestSupport.connect(client, server)) {
      SplittableRandom random = new SplittableRandom(53);
      long[] edges = {0, 1, 0xFFFF_FFFFL, 0x1_0000_0000L, Long.MAX_VALUE, Long.MIN_VALUE, -1};
      for (int i = 0; i < 400; i++) {
        long a = i < edges.length * edges.length ? edges[i % edges.length] : random.nextLong();
        long b =
            i < edges.length * edges.length
                ? edges[i / edges.length]
                : random.nextBoolean() ? a - random.nextLong(1L << 53) : random.nextLong();
        String[] x = DecisionReply.halves(a);
        String[] y = DecisionReply.halves(b);
        List<Object> r =
            c.sync().eval(script, ScriptOutputType.MULTI, new String[0], x[0], x[1], y[0], y[1]);
        assertThat(((Long) r.get(0) << 32) | (Long) r.get(1)).as("%d + %d", a, b).isEqualTo(a + b);
        assertThat(((Long) r.get(2) << 32) | (Long) r.get(3)).as("%d - %d", a, b).isEqualTo(a - b);
        assertThat(r.get(4))
            .as("%d <= %d unsigned", a, b)
            .isEqualTo(Long.compareUnsigned(a, b) <= 0 ? 1L : 0L);
        if (Math.abs(a - b) < (1L << 53) && a - b != Long.MIN_VALUE) {
          assertThat(Long.parseLong((String) r.get(5))).as("%d - %d signed", a, b).isEqualTo(a - b);
        }
      }
    } finally {
      RedisTestSupport.shutdown(client);
    }
  }
}
