package io.ringtail.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SumCap} must do, whatever it stores and wherever.
 *
 * <p>Published in core's test-jar. A backend extends it and builds its cap from the given
 * configuration in {@link #newCap}; every test passes a {@link ManualTimeSource} in the
 * configuration and moves it explicitly. Keys are unique per test instance.
 */
public abstract class SumCapContract extends DecisionContract {
  protected static final Duration WEEK = Duration.ofDays(7);
  private static final long DAY = Duration.ofDays(1).toNanos();

  /** A cap applying {@code config}. */
  protected abstract SumCap newCap(SumCapConfig config);

  private SumCap cap(String cap, ManualTimeSource time) {
    return newCap(
        SumCapConfig.builder().cap(new BigDecimal(cap)).window(WEEK).timeSource(time).build());
  }

  private static BigDecimal eur(String amount) {
    return new BigDecimal(amount);
  }

  @Test
  public void thirdsOfTen_reachTenExactly() {
    SumCap cap = cap("10.00", time());
    assertThat(cap.tryAdd(key("u"), eur("3.33")).allowed()).isTrue();
    assertThat(cap.tryAdd(key("u"), eur("3.33")).allowed()).isTrue();
    SumDecision third = cap.tryAdd(key("u"), eur("3.34"));
    assertThat(third.allowed()).isTrue();
    assertThat(third.total()).isEqualTo(eur("10.00"));
    assertThat(third.remaining()).isEqualTo(eur("0.00"));
    SumDecision cent = cap.tryAdd(key("u"), eur("0.01"));
    assertThat(cent.allowed()).isFalse();
    assertThat(cent.total()).isEqualTo(eur("10.00"));
  }

  @Test
  public void manySmallAmounts_sumWithoutDrift() {
    SumCap cap = cap("1.00", time());
    for (int i = 0; i < 10; i++) {
      assertThat(cap.tryAdd(key("u"), eur("0.1")).allowed()).as("add %d", i + 1).isTrue();
    }
    SumDecision full = cap.tryAdd(key("u"), eur("0.01"));
    assertThat(full.allowed()).isFalse();
    assertThat(full.total()).isEqualTo(eur("1.00"));
  }

  @Test
  public void amountEqualToCap_isAllowedOnAnEmptyWindow() {
    SumDecision d = cap("10.00", time()).tryAdd(key("u"), eur("10"));
    assertThat(d.allowed()).isTrue();
    assertThat(d.amount()).isEqualTo(eur("10.00"));
    assertThat(d.remaining()).isEqualTo(eur("0.00"));
    assertThat(d.retryAfter()).contains(Duration.ZERO);
  }

  @Test
  public void singleAmountAboveCap_isAlwaysDenied_withNoRetry() {
    ManualTimeSource time = time();
    SumCap cap = cap("10.00", time);
    SumDecision d = cap.tryAdd(key("u"), eur("10.01"));
    assertThat(d.allowed()).isFalse();
    assertThat(d.exceedsCap()).isTrue();
    assertThat(d.retryAfter()).isEmpty();
    assertThat(d.total()).isEqualTo(eur("0.00"));
    assertThat(d.remaining()).isEqualTo(eur("10.00"));
    SumDecision huge = cap.tryAdd(key("u"), new BigDecimal("1e30"));
    assertThat(huge.exceedsCap()).isTrue();
    assertThat(cap.tryAdd(key("u"), eur("10.00")).allowed()).as("nothing was recorded").isTrue();
  }

  @Test
  public void retryAfter_andFreesIn_areExact() {
    ManualTimeSource time = time();
    SumCap cap = cap("10.00", time);
    long t0 = time.nanoTime();
    cap.tryAdd(key("u"), eur("4.00"), t0);
    cap.tryAdd(key("u"), eur("3.00"), t0 + DAY);
    cap.tryAdd(key("u"), eur("2.00"), t0 + 2 * DAY);

    SumDecision five = cap.tryAdd(key("u"), eur("5.00"), t0 + 3 * DAY);
    assertThat(five.allowed()).isFalse();
    assertThat(five.exceedsCap()).isFalse();
    assertThat(five.total()).isEqualTo(eur("9.00"));
    assertThat(five.remaining()).isEqualTo(eur("1.00"));
    assertThat(five.retryAfter()).contains(Duration.ofDays(4));
    assertThat(five.freesIn()).isEqualTo(Duration.ofDays(4));

    SumDecision six = cap.tryAdd(key("u"), eur("6.00"), t0 + 3 * DAY);
    assertThat(six.retryAfter()).as("both 4.00 and 3.00 must leave").contains(Duration.ofDays(5));

    assertThat(cap.tryAdd(key("u"), eur("5.00"), t0 + 7 * DAY - 1).allowed()).isFalse();
    SumDecision atEdge = cap.tryAdd(key("u"), eur("5.00"), t0 + 7 * DAY);
    assertThat(atEdge.allowed()).as("the window is half-open").isTrue();
    assertThat(atEdge.total()).isEqualTo(eur("10.00"));
    assertThat(atEdge.freesIn()).isEqualTo(Duration.ofDays(1));
  }

  @Test
  public void emptyWindow_freesInZero() {
    SumDecision d = cap("10.00", time()).tryAdd(key("u"), eur("0"));
    assertThat(d.allowed()).isTrue();
    assertThat(d.total()).isEqualTo(eur("0.00"));
    assertThat(d.freesIn()).isZero();
  }

  @Test
  public void deniedAmounts_areNotRecorded() {
    ManualTimeSource time = time();
    SumCap cap = cap("10.00", time);
    cap.tryAdd(key("u"), eur("9.00"));
    for (int i = 0; i < 5; i++) {
      assertThat(cap.tryAdd(key("u"), eur("2.00")).allowed()).isFalse();
    }
    assertThat(cap.tryAdd(key("u"), eur("1.00")).allowed()).isTrue();
  }

  @Test
  public void keys_areIndependent() {
    SumCap cap = cap("5", time());
    assertThat(cap.tryAdd(key("a"), eur("5")).allowed()).isTrue();
    assertThat(cap.tryAdd(key("b"), eur("5")).allowed()).isTrue();
    assertThat(cap.tryAdd(key("a"), eur("0.01")).allowed()).isFalse();
  }

  @Test
  public void badInput_throwsAndLosesNothing() {
    ManualTimeSource time = time();
    SumCap cap = cap("10.00", time);
    cap.tryAdd(key("u"), eur("4.00"));
    assertThatThrownBy(() -> cap.tryAdd(null, eur("1")))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> cap.tryAdd("", eur("1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> cap.tryAdd(key("u"), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("amount");
    assertThatThrownBy(() -> cap.tryAdd(key("u"), eur("-0.01")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll("amount", "-0.01");
    assertThatThrownBy(() -> cap.tryAdd(key("u"), eur("0.001"), time.nanoTime()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll("amount", "0.001");
    SumDecision d = cap.tryAdd(key("u"), eur("6.00"));
    assertThat(d.allowed()).isTrue();
    assertThat(d.total()).isEqualTo(eur("10.00"));
  }

  @Test
  public void referenceModel_randomStreams() {
    for (String capText : new String[] {"1.00", "10.00", "250.00"}) {
      ManualTimeSource time = time();
      BigDecimal capValue = new BigDecimal(capText);
      SumCap cap =
          newCap(
              SumCapConfig.builder()
                  .cap(capValue)
                  .window(WEEK)
                  .timeSource(time)
                  .idleExpiry(WEEK.multipliedBy(3))
                  .maxEntriesPerKey(SumCapConfig.MAX_ENTRIES_PER_KEY)
                  .build());
      ExactDecisionModels.Sum model = new ExactDecisionModels.Sum(capValue, WEEK, 2);
      SplittableRandom random = new SplittableRandom(capText.hashCode());
      String[] keys = {key(capText + "a"), key(capText + "b"), key(capText + "c")};
      long capCents = capValue.movePointRight(2).longValueExact();
      for (int i = 0; i < randomOperations(); i++) {
        int step = random.nextInt(10);
        if (step < 5) {
          time.advanceNanos(random.nextLong(DAY));
        } else if (step == 5) {
          time.advanceNanos(WEEK.toNanos() - random.nextInt(3) + 1);
        }
        String key = keys[random.nextInt(keys.length)];
        long cents =
            random.nextInt(8) == 0
                ? capCents + random.nextInt(3) - 1
                : random.nextLong(Math.max(2, capCents / 3));
        BigDecimal amount = BigDecimal.valueOf(cents, 2);
        if (random.nextBoolean()) {
          amount = amount.stripTrailingZeros();
        }
        long t = random.nextInt(20) == 0 ? time.nanoTime() - random.nextLong(DAY) : time.nanoTime();
        SumDecision expected = model.tryAdd(key, amount, t);
        assertThat(cap.tryAdd(key, amount, t))
            .as("operation %d cap %s", i, capText)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  public void concurrentAmountsForOneKey_neverExceedCap() throws Exception {
    ManualTimeSource time = time();
    int attempts = threads() * attemptsPerThread();
    long capCents = Math.max(1, attempts * 3 / 4);
    SumCap cap = cap(BigDecimal.valueOf(capCents, 2).toPlainString(), time);
    for (int round = 0; round < rounds(); round++) {
      int admitted =
          Races.countTrue(
              threads(), attemptsPerThread(), () -> cap.tryAdd(key("hot"), eur("0.01")).allowed());
      assertThat(admitted).as("round %d", round).isEqualTo(capCents);
      SumDecision after = cap.tryAdd(key("hot"), eur("0"));
      assertThat(after.total()).isEqualTo(BigDecimal.valueOf(capCents, 2));
      time.advance(WEEK);
    }
  }

  @Test
  public void listener_notifiedOncePerCrossing_withCooldown() {
    ManualTimeSource time = time();
    List<String> seen = new CopyOnWriteArrayList<>();
    SumCap cap =
        newCap(
            SumCapConfig.builder()
                .cap(eur("10"))
                .window(WEEK)
                .timeSource(time)
                .listenerCooldown(WEEK.multipliedBy(3))
                .listener((k, d) -> seen.add(k + ":" + d.amount()))
                .build());
    cap.tryAdd(key("u"), eur("8"));
    cap.tryAdd(key("u"), eur("3"));
    cap.tryAdd(key("u"), eur("4"));
    assertThat(seen).containsExactly(key("u") + ":3.00");
    time.advance(WEEK);
    cap.tryAdd(key("u"), eur("8"));
    cap.tryAdd(key("u"), eur("3"));
    assertThat(seen).as("inside the cooldown").hasSize(1);
    time.advance(WEEK.multipliedBy(3));
    cap.tryAdd(key("u"), eur("8"));
    cap.tryAdd(key("u"), eur("3"));
    assertThat(seen).containsExactly(key("u") + ":3.00", key("u") + ":3.00");
  }

  @Test
  public void hugeExponents_areDecidedAtOnce_andAboveTheCapIsExceedsCap() {
    ManualTimeSource time = time();
    SumCap cap = cap("10.00", time);
    cap.tryAdd(key("u"), eur("4.00"));
    assertTimeoutPreemptively(
        Duration.ofSeconds(2),
        () -> {
          SumDecision huge = cap.tryAdd(key("u"), new BigDecimal("1E+10000000"));
          assertThat(huge.allowed()).isFalse();
          assertThat(huge.exceedsCap()).isTrue();
          assertThat(huge.retryAfter()).isEmpty();
          assertThat(huge.amount()).isEqualTo(new BigDecimal("1E+10000000"));
          assertThat(huge.total()).isEqualTo(eur("4.00"));
          assertThatThrownBy(() -> cap.tryAdd(key("u"), new BigDecimal("1E-30000000")))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContainingAll(
                  "amount",
                  "amount must be a decimal with at most 2 digits after the point",
                  "1E-30000000");
          assertThatThrownBy(() -> cap.tryAdd(key("u"), new BigDecimal("7E-2147483647")))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("amount");
          SumDecision fine = cap.tryAdd(key("u"), new BigDecimal("10.001"));
          assertThat(fine.exceedsCap()).as("above the cap, whatever its decimals").isTrue();
          assertThat(fine.allowed()).isFalse();
          assertThat(cap.tryAdd(key("u"), new BigDecimal("0E-30000000")).allowed()).isTrue();
          assertThat(
                  cap.tryAdd(key("u"), new BigDecimal("1.000000000000000000000000000000")).total())
              .isEqualTo(eur("5.00"));
        });
    assertThat(cap.tryAdd(key("u"), eur("5.00")).total())
        .as("nothing else was recorded")
        .isEqualTo(eur("10.00"));
  }

  @Test
  public void decisionsCarryAmountsAtTheConfiguredScale() {
    SumDecision d = cap("10", time()).tryAdd(key("u"), eur("2.5"));
    assertThat(d.amount()).isEqualTo(eur("2.50"));
    assertThat(d.total()).isEqualTo(eur("2.50"));
    assertThat(d.cap()).isEqualTo(eur("10.00"));
    assertThat(d.retryAfter()).isEqualTo(Optional.of(Duration.ZERO));
  }
}
