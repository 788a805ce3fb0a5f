package io.ringtail.spring.limit;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.spring.limit.RateLimitFields.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The draft's header fields as the limit filters write them: every combination docs/limits.md
 * shows, formatted by the one value both filters write, and found in the page as written there.
 */
class RateLimitFieldsTest {
  private static final Path DOCS = Path.of("../../docs/limits.md");

  private static final Policy API = new Policy("api", 100, Duration.ofMinutes(1));
  private static final Policy BURST = new Policy("burst", 10, Duration.ofSeconds(1));

  private static String docs() throws IOException {
    return Files.readString(DOCS);
  }

  @Test
  void aLimitWithRequestsLeft_hasItsPolicyAndRemaining_asTheDocsShow() throws IOException {
    RateLimitFields fields = RateLimitFields.NONE.and(API, 41);

    assertThat(fields.policy()).isEqualTo("\"api\";q=100;w=60");
    assertThat(fields.state()).isEqualTo("\"api\";r=41");
    assertThat(docs()).contains(lines(fields));
  }

  @Test
  void theAdmissionThatTakesTheLast_hasT_asTheDocsShow() throws IOException {
    RateLimitFields fields = RateLimitFields.NONE.and(API, 0, 37);

    assertThat(fields.state()).isEqualTo("\"api\";r=0;t=37");
    assertThat(docs()).contains(lines(fields));
  }

  @Test
  void aDenial_hasRZeroAndT_asTheDocsShow() throws IOException {
    RateLimitFields fields = RateLimitFields.NONE.and(API, 0, 12);

    assertThat(docs()).contains(lines(fields) + "\nRetry-After: 12");
  }

  @Test
  void theFailClosedOutageAnswer_isRZeroAndTheRetry_asTheDocsShow() throws IOException {
    RateLimitFields fields = RateLimitFields.NONE.and(API, 0, 1);

    assertThat(docs()).contains("`RateLimit: " + fields.state() + "`");
  }

  @Test
  void severalLimits_listOneMemberEach_inTheOrderDecided() throws IOException {
    RateLimitFields fields = RateLimitFields.NONE.and(API, 41).and(BURST, 0, 1);

    assertThat(fields.policy()).isEqualTo("\"api\";q=100;w=60, \"burst\";q=10;w=1");
    assertThat(fields.state()).isEqualTo("\"api\";r=41, \"burst\";r=0;t=1");
    assertThat(docs()).contains("(`" + fields.policy() + "`)");
  }

  @Test
  void anUndecidedLimit_hasAPolicyMember_andNoStateMember() {
    assertThat(RateLimitFields.NONE.andUndecided(API).policy()).isEqualTo("\"api\";q=100;w=60");
    assertThat(RateLimitFields.NONE.andUndecided(API).state()).isNull();

    RateLimitFields afterOne = RateLimitFields.NONE.and(BURST, 9).andUndecided(API);
    assertThat(afterOne.policy()).isEqualTo("\"burst\";q=10;w=1, \"api\";q=100;w=60");
    assertThat(afterOne.state()).isEqualTo("\"burst\";r=9");
  }

  @Test
  void aWindowOfPartSeconds_isRoundedUp() {
    Policy policy = new Policy("x", 3, Duration.ofMillis(1_500));

    assertThat(policy.member).isEqualTo("\"x\";q=3;w=2");
    assertThat(RateLimitFields.seconds(Duration.ofSeconds(60))).isEqualTo(60);
    assertThat(RateLimitFields.seconds(Duration.ofNanos(60_000_000_001L))).isEqualTo(61);
    assertThat(RateLimitFields.seconds(Duration.ZERO)).isZero();
  }

  @Test
  void none_hasNoMembers() {
    assertThat(RateLimitFields.NONE.isEmpty()).isTrue();
    assertThat(RateLimitFields.NONE.policy()).isEmpty();
    assertThat(RateLimitFields.NONE.state()).isNull();
    assertThat(RateLimitFields.NONE.and(API, 1).isEmpty()).isFalse();
  }

  @Test
  void fieldsAreEqual_whenTheyWriteTheSameValues() {
    assertThat(RateLimitFields.NONE.and(API, 0, 3))
        .isEqualTo(RateLimitFields.NONE.and(new Policy("api", 100, Duration.ofSeconds(60)), 0, 3))
        .hasSameHashCodeAs(RateLimitFields.NONE.and(API, 0, 3))
        .isNotEqualTo(RateLimitFields.NONE.and(API, 0))
        .hasToString("RateLimit-Policy: \"api\";q=100;w=60; RateLimit: \"api\";r=0;t=3");
  }

  /** The two fields as the docs' example answers show them. */
  private static String lines(RateLimitFields fields) {
    return RateLimitFields.POLICY_FIELD
        + ": "
        + fields.policy()
        + "\n"
        + RateLimitFields.STATE_FIELD
        + ": "
        + fields.state();
  }
}
