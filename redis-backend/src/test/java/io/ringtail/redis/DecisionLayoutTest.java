package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.decision.ThresholdDecision;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each decision script reads its packed argument as its {@link DecisionLayout} writes it: the
 * script's {@code ARGS} format and the locals it unpacks are the layout's, field by field; and the
 * packed reply decision.lua sends is the one each kind of {@link DecisionReply} reads, value by
 * value. A field added, moved or retyped on one side only fails here, before any behaviour test.
 */
class DecisionLayoutTest {
  private static final Pattern ARGS = Pattern.compile("(?m)^local ARGS = '([^']*)'$");
  private static final Pattern UNPACK =
      Pattern.compile("(?m)^local ([\\w, ]+) = struct\\.unpack\\(ARGS, ARGV\\[1\\]\\)$");
  private static final Pattern REPLY = Pattern.compile("(?m)^local REPLY = '([^']*)'$");
  private static final Pattern PACK_REPLY = Pattern.compile("struct\\.pack(\\()\\s*REPLY,");

  private static String script(String name) throws IOException {
    try (InputStream in = DecisionLayout.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String only(Pattern pattern, String text, String what) {
    Matcher m = pattern.matcher(text);
    assertThat(m.find()).as(what).isTrue();
    String found = m.group(1);
    assertThat(m.find()).as("one " + what).isFalse();
    return found;
  }

  @Test
  void everyDecisionScript_unpacksExactlyItsJavaLayout() throws IOException {
    for (DecisionLayout layout :
        List.of(
            DecisionLayout.RATE_LIMIT,
            DecisionLayout.BUCKETED_RATE_LIMIT,
            DecisionLayout.SUM_CAP,
            DecisionLayout.THRESHOLD)) {
      String lua = script(layout.script());
      assertThat(only(ARGS, lua, layout.script() + "'s ARGS line"))
          .as("%s's ARGS format", layout.script())
          .isEqualTo(layout.luaFormat());
      assertThat(Arrays.asList(only(UNPACK, lua, layout.script() + "'s unpack").split(", ")))
          .as("%s's unpacked locals", layout.script())
          .isEqualTo(layout.luaLocals());
    }
  }

  @Test
  void theLayoutsName_eachFieldOnce_deadlineFirst() {
    for (DecisionLayout layout :
        List.of(
            DecisionLayout.RATE_LIMIT,
            DecisionLayout.BUCKETED_RATE_LIMIT,
            DecisionLayout.SUM_CAP,
            DecisionLayout.THRESHOLD)) {
      List<String> locals = layout.luaLocals();
      assertThat(locals).as(layout.script()).doesNotHaveDuplicates().startsWith("deadline");
      assertThat(layout.luaFormat()).startsWith(">d");
    }
  }

  @Test
  void theFunctionsReply_isTheOneDecisionReplyReads() throws IOException {
    assertThat(only(REPLY, script("decision.lua"), "decision.lua's REPLY line"))
        .isEqualTo(DecisionReply.LUA_FORMAT);
  }

  @Test
  void everyDecisionScript_packsAsManyReplyValuesAsTheFormatHolds() throws IOException {
    int values = DecisionReply.LUA_FORMAT.replace("I4", "i").length() - 1; // B B I4 I4 d d
    for (String name :
        List.of("rate_limit.lua", "bucketed_rate_limit.lua", "sum_cap.lua", "threshold.lua")) {
      String lua = script(name);
      int packs = 0;
      for (Matcher m = PACK_REPLY.matcher(lua); m.find(); packs++) {
        assertThat(arguments(lua, m.start(1)))
            .as("%s's reply at offset %d", name, m.start())
            .isEqualTo(1 + values);
      }
      assertThat(packs).as("%s packs a reply", name).isPositive();
    }
  }

  /** The number of top-level arguments of the call whose opening parenthesis is at {@code open}. */
  private static int arguments(String lua, int open) {
    int depth = 0;
    int commas = 0;
    for (int i = open; ; i++) {
      char c = lua.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return commas + 1;
      } else if (c == ',' && depth == 1) {
        commas++;
      }
    }
  }

  /** A reply as decision.lua packs it: two bytes, a long's halves, two doubles. */
  private static byte[] packed(int verdict, int notify, long count, long first, long second) {
    return ByteBuffer.allocate(26)
        .put((byte) verdict)
        .put((byte) notify)
        .putLong(count)
        .putDouble(first)
        .putDouble(second)
        .array();
  }

  @Test
  void rateLimitReply_namesTheValuesRateLimitLuaPacks() {
    // rate_limit.lua: allowed, notify, remaining, retry-after, denied-until from the request
    assertThat(DecisionReply.RateLimit.of(packed(0, 1, 0, 250_000, 900_000)))
        .isEqualTo(new DecisionReply.RateLimit(false, true, 0, 250_000, 900_000));
    assertThat(DecisionReply.RateLimit.of(packed(1, 0, 41, 0, -1)))
        .isEqualTo(new DecisionReply.RateLimit(true, false, 41, 0, -1));
  }

  @Test
  void sumCapReply_namesTheValuesSumCapLuaPacks() {
    // sum_cap.lua: allowed, notify, total units (halves), retry-after or -1, frees-in
    long total = (7L << 32) | 0xFFFF_FFF0L;
    assertThat(DecisionReply.SumCap.of(packed(1, 0, total, -1, 30_000)))
        .isEqualTo(new DecisionReply.SumCap(true, false, total, -1, 30_000));
    assertThat(DecisionReply.SumCap.of(packed(0, 1, 5, 12, 13)))
        .isEqualTo(new DecisionReply.SumCap(false, true, 5, 12, 13));
  }

  @Test
  void thresholdReply_namesTheValuesThresholdLuaPacks() {
    // threshold.lua: outcome (0 counted, 1 duplicate, 2 expired), notify, count, crossed, first
    // overflow of the cap
    assertThat(DecisionReply.Threshold.of(packed(0, 1, 3, 1, 0)))
        .isEqualTo(
            new DecisionReply.Threshold(ThresholdDecision.Outcome.COUNTED, true, 3, true, false));
    assertThat(DecisionReply.Threshold.of(packed(1, 0, 9, 0, 1)))
        .isEqualTo(
            new DecisionReply.Threshold(
                ThresholdDecision.Outcome.DUPLICATE, false, 9, false, true));
    assertThat(DecisionReply.Threshold.of(packed(2, 0, 0, 0, 0)).outcome())
        .isEqualTo(ThresholdDecision.Outcome.EXPIRED);
  }
}
