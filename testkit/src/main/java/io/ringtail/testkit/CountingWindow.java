package io.ringtail.testkit;

import io.ringtail.CumulativeHistogram;
import io.ringtail.RollingWindow;
import io.ringtail.TimeSource;
import io.ringtail.WindowSnapshot;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A window that counts how many snapshots it was asked for, delegating everything else. */
public class CountingWindow implements RollingWindow {
  private final RollingWindow delegate;
  private final AtomicInteger snapshots = new AtomicInteger();

  public CountingWindow(RollingWindow delegate) {
    this.delegate = delegate;
  }

  public int snapshots() {
    return snapshots.get();
  }

  @Override
  public void record(long value) {
    delegate.record(value);
  }

  @Override
  public void recordAt(long value, long timeNanos) {
    delegate.recordAt(value, timeNanos);
  }

  @Override
  public WindowSnapshot snapshot() {
    snapshots.incrementAndGet();
    return delegate.snapshot();
  }

  @Override
  public Optional<CumulativeHistogram> cumulativeHistogram() {
    return delegate.cumulativeHistogram();
  }

  @Override
  public Duration length() {
    return delegate.length();
  }

  @Override
  public TimeSource timeSource() {
    return delegate.timeSource();
  }

  @Override
  public long footprintBytes() {
    return delegate.footprintBytes();
  }
}
