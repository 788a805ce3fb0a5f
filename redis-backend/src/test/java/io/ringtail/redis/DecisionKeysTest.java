package io.ringtail.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Decision keys' escaping against a naive model, on random strings. */
class DecisionKeysTest {
  private static String naive(String s) {
    return s.replace("%", "%25").replace("{", "%7B").replace("}", "%7D").replace(":", "%3A");
  }

  @Test
  void escape_matchesTheNaiveModel_andKeepsAPlainStringAsItIs() {
    SplittableRandom random = new SplittableRandom(7);
    String alphabet = "ab%{}:é9 ";
    for (int i = 0; i < 20_000; i++) {
      StringBuilder b = new StringBuilder();
      int n = random.nextInt(12);
      for (int k = 0; k < n; k++) {
        // a plain character three times in four, so many strings have nothing to escape
        b.append(
            random.nextInt(4) == 0
                ? alphabet.charAt(random.nextInt(alphabet.length()))
                : (char) ('a' + random.nextInt(26)));
      }
      String s = b.toString();
      String escaped = DecisionKeys.escape(s);
      assertThat(escaped).as(s).isEqualTo(naive(s));
      if (escaped.equals(s)) {
        assertThat(escaped).as("no copy of " + s).isSameAs(s);
      }
    }
  }

  @Test
  void of_sharesOneHashTagPerNameAndKey() {
    assertThat(DecisionKeys.of("p", "api:v1", "client{1}", "a", "b"))
        .containsExactly("p:{api%3Av1:client%7B1%7D}:a", "p:{api%3Av1:client%7B1%7D}:b");
  }
}
