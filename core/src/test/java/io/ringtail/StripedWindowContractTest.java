package io.ringtail;

import java.time.Duration;

class StripedWindowContractTest extends RollingWindowContract {
  @Override
  protected RollingWindow newWindow(Duration length, int buckets, ManualTimeSource time) {
    return RollingWindow.create(WindowConfig.builder().length(length).buckets(buckets).build(), time);
  }
}
