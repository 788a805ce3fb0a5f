package io.ringtail.examples.spend;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.decision.SumDecision;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SpendCapTest {

  @Test
  void run_scenario_capsEveryUserAtTenEurosPerSlidingWeek() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    List<SpendCap.Outcome> outcomes =
        SpendCap.run(SpendCap.SCENARIO, new PrintStream(out, true, StandardCharsets.UTF_8));

    Map<String, List<String>> byUser =
        outcomes.stream()
            .collect(
                Collectors.groupingBy(
                    o -> o.purchase().user(),
                    Collectors.mapping(
                        o -> o.purchase().amount() + (o.decision().allowed() ? "+" : "-"),
                        Collectors.toList())));
    // alice: four 2.50 reach 10.00 exactly; 0.01 more is refused; a week after her first purchase
    // 2.50 frees up: at day 8 08:00 it is 1 h too early, at 09:00 it fits
    assertThat(byUser.get("alice"))
        .containsExactly("2.50+", "2.50+", "2.50+", "2.50+", "0.01-", "2.50-", "2.50+");
    // bob: 3.33 + 3.33 + 3.34 is 10.00 exactly, not 9.999...; a week later his window has moved on
    assertThat(byUser.get("bob")).containsExactly("3.33+", "3.33+", "3.34+", "0.01-", "5.00+");
    // carol: 12.00 can never fit; 9.99 then does
    assertThat(byUser.get("carol")).containsExactly("12.00-", "9.99+");

    SumDecision bobFull = outcomes.get(indexOf(outcomes, "bob", "0.01")).decision();
    assertThat(bobFull.total()).isEqualByComparingTo(new BigDecimal("10.00"));
    assertThat(bobFull.retryAfter())
        .as("until bob's first purchase (hour 10) leaves the week, from hour 13")
        .contains(Duration.ofDays(7).minusHours(3));
    SumDecision carolTooBig = outcomes.get(indexOf(outcomes, "carol", "12.00")).decision();
    assertThat(carolTooBig.exceedsCap()).isTrue();
    assertThat(carolTooBig.retryAfter()).isEmpty();

    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains("day 1 12:00   bob      3.34 EUR  allowed: 10.00 spent this week, 0.00 left");
    assertThat(text).contains("refused: above the 10.00 cap on its own, can never fit");
    assertThat(text)
        .contains(
            "day 1 13:00   bob      0.01 EUR  refused: 10.00 already spent, fits again in 6d 21h 00m");
  }

  private static int indexOf(List<SpendCap.Outcome> outcomes, String user, String amount) {
    for (int i = 0; i < outcomes.size(); i++) {
      if (outcomes.get(i).purchase().user().equals(user)
          && outcomes.get(i).purchase().amount().equals(amount)) {
        return i;
      }
    }
    throw new AssertionError(user + " " + amount);
  }
}
