package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.ringtail.redis.DecisionLayout.Arg;
import io.ringtail.redis.testkit.RedisExtension;
import io.ringtail.redis.testkit.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The 64-bit arithmetic of the prelude decision.lua on a real server, against Java's long
 * arithmetic: sums and differences of halves modulo 2^64 across the 2^32 carry and borrow, the
 * unsigned order, and signed time differences exact below 2^53; and {@link PackedArgs} as Lua's
 * {@code struct.unpack} reads it.
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

  /** A long's unsigned 32-bit halves as script arguments, high first. */
  private static String[] halves(long value) {
    return new String[] {Long.toString(value >>> 32), Long.toString(value & 0xFFFF_FFFFL)};
  }

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
        String[] x = halves(a);
        String[] y = halves(b);
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

  @Test
  void packedArgs_readExactlyByLua_wholeNumbersUpTo2To53AndLongsAsHalves(RedisProcess server) {
    // each field back as a decimal string: a whole double with %.0f, halves as two integers
    String script =
        "local n, h, l = struct.unpack('>dI4I4', ARGV[1])"
            + " return {string.format('%.0f', n), h, l}";
    RedisClient client = RedisTestSupport.client();
    try (StatefulRedisConnection<byte[], byte[]> c =
        client.connect(ByteArrayCodec.INSTANCE, server.uri())) {
      SplittableRandom random = new SplittableRandom(2_53);
      long[] numbers = {
        0, 1, (1L << 32) - 1, 1L << 32, PackedArgs.MAX_EXACT - 1, PackedArgs.MAX_EXACT
      };
      long[] longs = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0xFFFF_FFFFL, 1L << 32};
      for (int i = 0; i < 200; i++) {
        long number = i < numbers.length ? numbers[i] : random.nextLong(PackedArgs.MAX_EXACT + 1);
        long value = i < longs.length ? longs[i] : random.nextLong();
        // the sliding log's first two fields: the deadline (a whole number) and a time (halves)
        byte[] packed =
            DecisionLayout.RATE_LIMIT.args().number(Arg.DEADLINE, number).with(Arg.TIME, value);
        List<Object> r =
            c.sync()
                .eval(
                    script.getBytes(StandardCharsets.US_ASCII),
                    ScriptOutputType.MULTI,
                    new byte[0][],
                    packed);
        assertThat(new String((byte[]) r.get(0), StandardCharsets.US_ASCII))
            .as("number %d", number)
            .isEqualTo(Long.toString(number));
        assertThat(((Long) r.get(1) << 32) | (Long) r.get(2)).as("long %d", value).isEqualTo(value);
      }
    } finally {
      RedisTestSupport.shutdown(client);
    }
    PackedArgs args = DecisionLayout.RATE_LIMIT.args();
    assertThatThrownBy(() -> args.number(Arg.LIMIT, PackedArgs.MAX_EXACT + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("LIMIT must be between 0 and 9007199254740992, but was");
    assertThatThrownBy(() -> args.number(Arg.LIMIT, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> args.number(Arg.TIME, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("arg must be a whole number argument of rate_limit.lua, but was TIME");
    assertThatThrownBy(() -> args.halves(Arg.AMOUNT, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("arg must be an argument of rate_limit.lua, but was AMOUNT");
  }
}
