package io.ringtail;

class CompactWindowContractTest extends InProcessWindowContract {
  @Override
  RollingWindow build(WindowConfig config, ManualTimeSource time) {
    return RollingWindow.createCompact(config, time);
  }
}
