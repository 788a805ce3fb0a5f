package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.FlushMode;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.ringtail.ManualTimeSource;
import io.ringtail.decision.RateLimitConfig;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.redis.testkit.BackendOptions;
import io.ringtail.redis.testkit.RedisExtension;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The decisions on one string run as functions of one library (FCALL): it loads itself wherever it
 * is missing, and is named after its code, so other versions of it on the same server are left as
 * they are.
 */
@ExtendWith(RedisExtension.class)
@BackendOptions(outagePolicy = OutagePolicy.THROW)
class DecisionLibraryTest {
  private static RedisCommands<String, String> redis;
  private static RedisBackend backend;

  @BeforeAll
  static void connect(RedisBackend redisBackend, RedisCommands<String, String> commands) {
    backend = redisBackend;
    redis = commands;
  }

  @Test
  void afterFunctionFlush_theNextDecisionLoadsTheLibrary_andDecidesExactly() {
    ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);
    RateLimiter limiter =
        backend.rateLimiter(
            "library-flush", RateLimitConfig.builder().limit(2).timeSource(time).build());
    SumCap cap =
        backend.sumCap(
            "library-flush",
            SumCapConfig.builder().cap(new BigDecimal("5")).timeSource(time).build());
    assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    redis.functionFlush(FlushMode.SYNC);
    assertThat(redis.functionList()).isEmpty();

    assertThat(limiter.tryAcquire("k").remaining()).as("the state survived the flush").isZero();
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    redis.functionFlush(FlushMode.SYNC);
    assertThat(cap.tryAdd("k", new BigDecimal("4")).allowed()).isTrue();
    assertThat(cap.tryAdd("k", new BigDecimal("2")).allowed()).isFalse();
    assertThat(libraryNames()).containsExactly(Scripts.DECISIONS.name);
  }

  @Test
  void anotherVersionOfTheLibrary_isLeftAsItIs() {
    String other = "ringtail_0123456789abcdef";
    redis.functionLoad(
        "#!lua name="
            + other
            + "\nredis.register_function('"
            + other
            + "_rate_limit', function(keys, args) return 42 end)",
        true);
    RateLimiter limiter =
        backend.rateLimiter(
            "library-versions",
            RateLimitConfig.builder().limit(1).timeSource(new ManualTimeSource(1L)).build());
    assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    assertThat(libraryNames()).contains(other, Scripts.DECISIONS.name);
    Long answer = redis.fcall(other + "_rate_limit", ScriptOutputType.INTEGER, "k");
    assertThat(answer).isEqualTo(42L);
  }

  @Test
  void functionNames_carryTheLibraryName() {
    assertThat(Scripts.DECISIONS.name).matches("ringtail_[0-9a-f]{16}");
    assertThat(Scripts.RATE_LIMIT.name()).isEqualTo(Scripts.DECISIONS.name + "_rate_limit");
    assertThat(Scripts.DECISIONS.code)
        .startsWith("#!lua name=" + Scripts.DECISIONS.name + "\n")
        .contains("redis.register_function('" + Scripts.SUM_CAP.name() + "', sum_cap)");
  }

  @Test
  void documentedFunctionList_listsEveryVersionOfTheLibrary() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "redis-decisions.md"));
    Matcher m = Pattern.compile("`(FUNCTION LIST LIBRARYNAME [^`]+)`").matcher(doc);
    assertThat(m.find()).as("docs/redis-decisions.md shows the FUNCTION LIST command").isTrue();
    String[] words = m.group(1).split(" ");
    redis.functionLoad(
        "#!lua name=ringtail_fedcba9876543210\n"
            + "redis.register_function('ringtail_fedcba9876543210_f', function() return 1 end)",
        true);
    redis.functionLoad(
        "#!lua name=other_lib\nredis.register_function('other_lib_f', function() return 1 end)",
        true);
    backend
        .rateLimiter(
            "library-list",
            RateLimitConfig.builder().limit(1).timeSource(new ManualTimeSource(1L)).build())
        .tryAcquire("k");

    List<Object> listed =
        redis.dispatch(
            CommandType.FUNCTION,
            new NestedMultiOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8).add(words[1]).add(words[2]).add(words[3]));
    List<String> names =
        listed.stream().map(l -> ((List<?>) l).get(1)).map(Object::toString).toList();
    assertThat(names)
        .as("what `%s` lists", m.group(1))
        .contains(Scripts.DECISIONS.name, "ringtail_fedcba9876543210")
        .doesNotContain("other_lib");
  }

  private static List<Object> libraryNames() {
    return redis.functionList().stream().map(l -> l.get("library_name")).toList();
  }
}
