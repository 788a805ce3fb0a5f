package io.ringtail;

class StripedWindowContractTest extends InProcessWindowContract {
  @Override
  RollingWindow build(WindowConfig config, ManualTimeSource time) {
    return RollingWindow.create(config, time);
  }
}
