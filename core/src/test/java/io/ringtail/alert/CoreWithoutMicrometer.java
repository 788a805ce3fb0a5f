package io.ringtail.alert;

import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import java.util.List;

/**
 * Uses core and alerting end to end; {@code OptionalDependencyTest} runs it in a class loader
 * without Micrometer. Throws if anything is off.
 */
public final class CoreWithoutMicrometer implements Runnable {
  @Override
  public void run() {
    try {
      Class.forName("io.micrometer.core.instrument.MeterRegistry", false, getClass().getClassLoader());
      throw new IllegalStateException("Micrometer must not be visible here");
    } catch (ClassNotFoundException expected) {
      // the point of the exercise
    }
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), time);
    AlertMonitor monitor = AlertMonitor.create(time)
        .add(AlertRule.threshold("p95", window, Measure.percentile(95)).above(250e6).build());
    window.record(400_000_000L);
    List<AlertEvent> events = monitor.evaluate();
    if (events.size() != 1 || events.get(0).type() != AlertEvent.Type.FIRED) {
      throw new IllegalStateException("expected one FIRED event, got " + events);
    }
  }
}
