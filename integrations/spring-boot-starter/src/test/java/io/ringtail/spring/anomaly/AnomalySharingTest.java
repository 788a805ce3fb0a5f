package io.ringtail.spring.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.RuleSnapshot;
import org.junit.jupiter.api.Test;

/** The text one instance posts of an endpoint measure's state, as the next evaluator reads it. */
class AnomalySharingTest {
  private static final String RULE = "http.server.requests {method=GET, uri=/orders} p95";

  @Test
  void aPostedState_readsBackAsItWas() {
    AnomalySharing.Posted firing =
        new AnomalySharing.Posted(
            new RuleSnapshot(RULE, AlertMonitor.State.FIRING, 0.93, 4.1e8, 5.6e7, 4.3e8), true, 42);
    assertThat(firing.encode()).isEqualTo("4.1E8 5.6E7 0.93 4.3E8 1 1 42");
    assertThat(AnomalySharing.Posted.decode(RULE, firing.encode())).isEqualTo(firing);
    AnomalySharing.Posted quiet =
        new AnomalySharing.Posted(
            new RuleSnapshot(RULE, AlertMonitor.State.OK, Double.NaN, Double.NaN, 0.01, Double.NaN),
            false,
            7);
    assertThat(AnomalySharing.Posted.decode(RULE, quiet.encode())).isEqualTo(quiet);
  }

  @Test
  void nothingOrGarbagePosted_readsAsNothingYet() {
    AnomalySharing.Posted none = AnomalySharing.Posted.none(RULE);
    assertThat(none.evaluations()).isZero();
    assertThat(none.rule().firing()).isFalse();
    assertThat(AnomalySharing.Posted.decode(RULE, null)).isEqualTo(none);
    assertThat(AnomalySharing.Posted.decode(RULE, "1 2 3")).isEqualTo(none);
    assertThat(AnomalySharing.Posted.decode(RULE, "a b c d 1 1 9")).isEqualTo(none);
  }
}
