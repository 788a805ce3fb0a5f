package io.ringtail.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.alert.AlertEvent.Type;
import io.ringtail.testkit.CountingWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AlertMonitorTest {
  private final ManualTimeSource time = new ManualTimeSource(42_000_000_000L);

  private RollingWindow window() {
    return RollingWindow.create(
        WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).stripes(1).build(), time);
  }

  @Test
  void evaluate_withNoRules_readsNoClockAndNoWindow() {
    AtomicInteger clockReads = new AtomicInteger();
    TimeSource counted =
        () -> {
          clockReads.incrementAndGet();
          return time.nanoTime();
        };
    CountingWindow window = new CountingWindow(window());
    AlertMonitor monitor = AlertMonitor.create(counted);
    monitor.addListener(e -> {});
    assertThat(monitor.evaluate()).isEmpty();

    monitor.add(AlertRule.threshold("r", window, Measure.count()).atLeast(1).build());
    monitor.evaluate();
    assertThat(window.snapshots()).isEqualTo(1);
    assertThat(clockReads.get()).isEqualTo(1);

    assertThat(monitor.remove("r")).isTrue();
    for (int i = 0; i < 100; i++) {
      monitor.evaluate();
    }
    assertThat(window.snapshots()).isEqualTo(1);
    assertThat(clockReads.get()).isEqualTo(1);
  }

  @Test
  void evaluate_takesOneSnapshotPerWindowForAllItsRules() {
    CountingWindow a = new CountingWindow(window());
    CountingWindow b = new CountingWindow(window());
    AlertMonitor monitor =
        AlertMonitor.create(time)
            .add(AlertRule.threshold("a-p95", a, Measure.percentile(95)).above(100).build())
            .add(AlertRule.threshold("a-count", a, Measure.count()).atLeast(3).build())
            .add(AlertRule.ratio("a-vs-b", a, b, Measure.mean()).above(2).build());
    for (int i = 0; i < 3; i++) {
      a.record(1_000);
      b.record(100);
    }
    List<AlertEvent> events = monitor.evaluate();
    assertThat(a.snapshots()).isEqualTo(1);
    assertThat(b.snapshots()).isEqualTo(1);
    assertThat(events)
        .extracting(e -> e.rule().name())
        .containsExactly("a-p95", "a-count", "a-vs-b");
    assertThat(events.get(0).snapshot())
        .isSameAs(events.get(1).snapshot())
        .isSameAs(events.get(2).snapshot());
  }

  @Test
  void failingListenerOrWindow_doesNotStopTheOthers() {
    RollingWindow good = window();
    RollingWindow broken =
        new CountingWindow(window()) {
          @Override
          public WindowSnapshot snapshot() {
            throw new IllegalStateException("backend down");
          }
        };
    List<AlertEvent> heard = new ArrayList<>();
    AlertMonitor monitor =
        AlertMonitor.create(time)
            .add(AlertRule.threshold("broken", broken, Measure.count()).atLeast(1).build())
            .add(AlertRule.threshold("good", good, Measure.count()).atLeast(1).build())
            .addListener(
                e -> {
                  throw new IllegalStateException("listener bug");
                })
            .addListener(heard::add);
    good.record(5);
    assertThat(monitor.evaluate()).extracting(e -> e.rule().name()).containsExactly("good");
    assertThat(heard).extracting(e -> e.rule().name()).containsExactly("good");
    assertThat(monitor.state("broken")).isEqualTo(AlertMonitor.State.OK);
    assertThat(monitor.state("good")).isEqualTo(AlertMonitor.State.FIRING);
  }

  @Test
  void evaluateOn_runsOnTheGivenExecutor() {
    RollingWindow window = window();
    List<Runnable> queued = new ArrayList<>();
    List<AlertEvent> heard = new ArrayList<>();
    AlertMonitor monitor =
        AlertMonitor.create(time)
            .add(AlertRule.threshold("r", window, Measure.count()).atLeast(1).build())
            .addListener(heard::add);
    window.record(1);
    monitor.evaluateOn(queued::add);
    assertThat(heard).isEmpty();
    assertThat(queued).hasSize(1);
    queued.get(0).run();
    assertThat(heard).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void scheduleWith_evaluatesOnTheUsersSchedulerUntilCancelled() throws Exception {
    RollingWindow window = window();
    CountDownLatch evaluations = new CountDownLatch(3);
    Measure counting =
        s -> {
          evaluations.countDown();
          return s.count();
        };
    List<AlertEvent> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    AlertMonitor monitor =
        AlertMonitor.create(time)
            .add(AlertRule.threshold("r", window, counting).atLeast(1).build())
            .addListener(
                e -> {
                  heard.add(e);
                  throw new IllegalStateException(
                      "a failing listener must not cancel the schedule");
                });
    window.record(1);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      ScheduledFuture<?> future = monitor.scheduleWith(scheduler, Duration.ofMillis(1));
      assertThat(evaluations.await(30, TimeUnit.SECONDS)).isTrue();
      future.cancel(false);
      assertThat(future.isCancelled()).isTrue();
    } finally {
      scheduler.shutdown();
      assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(heard).extracting(AlertEvent::type).containsExactly(Type.FIRED);
  }

  @Test
  void scheduleWith_aPeriodBeyondLongNanos_isRejectedNamingIt() {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      AlertMonitor monitor = AlertMonitor.create(time);
      assertThatThrownBy(() -> monitor.scheduleWith(scheduler, Duration.ofDays(365L * 1_000)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("period must be within");
      assertThatThrownBy(() -> monitor.scheduleWith(scheduler, null))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("period");
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void add_rejectsDuplicateNamesAndStateRejectsUnknownOnes() {
    RollingWindow window = window();
    AlertMonitor monitor =
        AlertMonitor.create(time)
            .add(AlertRule.threshold("r", window, Measure.count()).atLeast(1).build());
    assertThatThrownBy(
            () -> monitor.add(AlertRule.threshold("r", window, Measure.max()).above(1).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rule name must be unique in a monitor, but was \"r\"");
    assertThatThrownBy(() -> monitor.state("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ruleName must be the name of a rule of this monitor, but was \"nope\"");
    assertThatThrownBy(
            () -> monitor.scheduleWith(Executors.newSingleThreadScheduledExecutor(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("period must be positive, but was PT0S");
    assertThat(monitor.rules()).extracting(AlertRule::name).containsExactly("r");
  }

  @Test
  void rulesInTwoMonitors_keepSeparateState() {
    RollingWindow window = window();
    AlertRule rule = AlertRule.threshold("r", window, Measure.count()).atLeast(1).build();
    AlertMonitor first = AlertMonitor.create(time).add(rule);
    AlertMonitor second = AlertMonitor.create(time).add(rule);
    window.record(1);
    assertThat(first.evaluate()).hasSize(1);
    assertThat(second.state("r")).isEqualTo(AlertMonitor.State.OK);
    assertThat(second.evaluate()).hasSize(1);
  }
}
