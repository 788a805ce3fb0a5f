package io.ringtail.redis;

import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.math.BigInteger;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Lua prelude decimal64.lua on a real server, against BigInteger: exact add and subtract on
 * 20-digit strings across the 10^10 carry and borrow, and the time encoding's order.
 */
@ExtendWith(RedisExtension.class)
class Decimal64LuaTest {
  private static final String PROBE = "\\nreturn {dadd(ARGV[1], ARGV[2]), dsub(ARGV[1], ARGV[2]), "
      + "ARGV[1] >= ARGV[2] and 1 or 0, plain(ARGV[1]), pad(plain(ARGV[2]))}";

  @Test
  void addSubtractCompare_matchBigInteger(RedisProcess server) {
    String prelude = LuaScript.load("decimal64.lua").body;
    RedisClient client = RedisTestSupport.client();
    try (StatefulRedisConnection<String, String> c = RedisTestSupport.connect(client, server)) {
      SplittableRandom random = new SplittableRandom(64);
      long[] edges = {0, 1, 9_999_999_999L, 10_000_000_000L, 10_000_000_001L, Long.MAX_VALUE / 2, 4_000_000_000_000_000_000L};
      for (int i = 0; i < 400; i++) {
        long a = i < edges.length ? edges[i] : random.nextLong(0, Long.MAX_VALUE / 2);
        long b = i < edges.length ? edges[(i + 3) % edges.length] : random.nextBoolean() ? random.nextLong(0, a + 1)
            : a - random.nextLong(0, 20_000_000_000L) % (a + 1);
        long big = Math.max(a, b);
        long small = Math.min(a, b);
        List<Object> r = c.sync().eval(prelude + PROBE.replace("\\n", "\n"), ScriptOutputType.MULTI, new String[0],
            Decimal64.of(big), Decimal64.of(small));
        assertThat(new BigInteger((String) r.get(0))).isEqualTo(BigInteger.valueOf(big).add(BigInteger.valueOf(small)));
        assertThat(Long.parseLong((String) r.get(1))).isEqualTo(big - small);
        assertThat(r.get(2)).isEqualTo(1L);
        assertThat(r.get(3)).isEqualTo(Long.toString(big));
        assertThat(r.get(4)).isEqualTo(Decimal64.of(small));
      }
    } finally {
      RedisTestSupport.shutdown(client);
    }
  }

  @Test
  void timeEncoding_ordersSignedReadingsAsText() {
    long[] times = {Long.MIN_VALUE, -1_000_000_000L, -1, 0, 1, 1_000_000_000_000_000_000L, Long.MAX_VALUE};
    for (int i = 1; i < times.length; i++) {
      assertThat(Decimal64.time(times[i - 1])).hasSize(20).isLessThan(Decimal64.time(times[i]));
    }
  }
}
