package io.ringtail.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowConfig;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.ExactWindowModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedWorkerTest {

  @Test
  void catchUp_servesTheRateExactly() {
    ManualTimeSource time = new ManualTimeSource(7_000);
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), time);
    SimulatedWorker worker =
        new SimulatedWorker(
            new SimulatedService(Duration.ofSeconds(30)), List.of(window), 250, time.nanoTime(), 1);

    assertThat(worker.catchUp(time.nanoTime())).isZero();
    time.advance(Duration.ofMillis(1_000));
    assertThat(worker.catchUp(time.nanoTime())).isEqualTo(250);
    time.advance(Duration.ofMillis(10));
    assertThat(worker.catchUp(time.nanoTime())).isEqualTo(2);
    assertThat(worker.served()).isEqualTo(252);
    assertThat(window.snapshot().count()).isEqualTo(252);
  }

  @Test
  void regimes_shiftLatencyUpAndBackDown() {
    SimulatedService service = new SimulatedService(Duration.ofSeconds(100));
    assertThat(service.regimeAt(0)).isEqualTo(Regime.NORMAL);
    assertThat(service.regimeAt(Duration.ofSeconds(34).toNanos())).isEqualTo(Regime.NORMAL);
    assertThat(service.regimeAt(Duration.ofSeconds(35).toNanos())).isEqualTo(Regime.DEGRADED);
    assertThat(service.regimeAt(Duration.ofSeconds(64).toNanos())).isEqualTo(Regime.DEGRADED);
    assertThat(service.regimeAt(Duration.ofSeconds(65).toNanos())).isEqualTo(Regime.RECOVERED);
    assertThat(service.regimeAt(Duration.ofSeconds(100).toNanos())).isEqualTo(Regime.RECOVERED);
  }

  /**
   * The dashboard's windows, fed by several workers, agree with an exact model of the same stream.
   */
  @Test
  void windows_matchExactModel_acrossTheRegimeChange() {
    ManualTimeSource time = new ManualTimeSource(-5_000_000_000L);
    ExactWindowModel exactShort = new ExactWindowModel();
    RollingWindow shortWindow =
        RollingWindow.create(
            WindowConfig.builder().length(Duration.ofSeconds(10)).buckets(10).build(), time);
    RollingWindow longWindow =
        RollingWindow.create(
            WindowConfig.builder().length(Duration.ofSeconds(60)).buckets(60).build(), time);
    RollingWindow exact = new ExactRecorder(exactShort, time);
    SimulatedService service = new SimulatedService(Duration.ofSeconds(40));
    long start = time.nanoTime();
    List<SimulatedWorker> workers =
        List.of(
            new SimulatedWorker(service, List.of(shortWindow, longWindow, exact), 150, start, 1),
            new SimulatedWorker(service, List.of(shortWindow, longWindow, exact), 150, start, 2));

    double normalP95 = 0;
    double degradedP95 = 0;
    for (int tick = 1; tick <= 400; tick++) {
      time.advance(Duration.ofMillis(100));
      workers.forEach(w -> w.catchUp(time.nanoTime()));
      if (tick % 10 != 0) {
        continue;
      }
      WindowSnapshot s = shortWindow.snapshot();
      ExactWindowModel.Stats e = exactShort.between(s.startNanos(), s.endNanos());
      assertThat(s.count()).isEqualTo(e.count());
      assertThat(s.sum()).isEqualTo(e.sum());
      assertThat(s.min()).isEqualTo(e.min());
      assertThat(s.max()).isEqualTo(e.max());
      assertThat(s.valueAtPercentile(95))
          .isCloseTo(e.valueAtPercentile(95), within(e.valueAtPercentile(95) * 0.01));
      assertThat(s.valueAtPercentile(99))
          .isCloseTo(e.valueAtPercentile(99), within(e.valueAtPercentile(99) * 0.01));
      assertThat(longWindow.snapshot().count())
          .isEqualTo(workers.stream().mapToLong(SimulatedWorker::served).sum());
      if (tick == 130) {
        normalP95 = s.valueAtPercentile(95);
      } else if (tick == 250) {
        degradedP95 = s.valueAtPercentile(95);
      }
    }
    assertThat(degradedP95).isGreaterThan(2.5 * normalP95);
    assertThat(longWindow.snapshot().count()).isEqualTo(2 * 150 * 40);
  }

  /** A window that only feeds the exact model; the test reads the model directly. */
  private record ExactRecorder(ExactWindowModel model, TimeSource timeSource)
      implements RollingWindow {
    @Override
    public void record(long value) {
      model.record(value, timeSource.nanoTime());
    }

    @Override
    public void recordAt(long value, long timeNanos) {
      model.record(value, timeNanos);
    }

    @Override
    public WindowSnapshot snapshot() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Duration length() {
      return Duration.ofSeconds(10);
    }

    @Override
    public long footprintBytes() {
      return 0;
    }
  }
}
