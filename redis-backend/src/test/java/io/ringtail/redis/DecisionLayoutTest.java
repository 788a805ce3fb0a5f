package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each decision script reads its packed argument as its {@link DecisionLayout} writes it: the
 * script's {@code ARGS} format and the locals it unpacks are the layout's, field by field; and the
 * packed reply decision.lua sends is the one {@link DecisionReply} reads. A field added, moved or
 * retyped on one side only fails here, before any behaviour test.
 */
class DecisionLayoutTest {
  private static final Pattern ARGS = Pattern.compile("(?m)^local ARGS = '([^']*)'$");
  private static final Pattern UNPACK =
      Pattern.compile("(?m)^local ([\\w, ]+) = struct\\.unpack\\(ARGS, ARGV\\[1\\]\\)$");
  private static final Pattern REPLY = Pattern.compile("(?m)^local REPLY = '([^']*)'$");

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
}
