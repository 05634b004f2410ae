import { gatewayConfig, gatewayConfigOf, loadSettings } from './gateway.config';

describe('gatewayConfigOf', () => {
  it('serves the settings parsed at start-up under the token every provider injects', () => {
    const settings = loadSettings({ NODE_ENV: 'test', PORT: '3456' });
    const config = gatewayConfigOf(settings);
    expect(config.KEY).toBe(gatewayConfig.KEY);
    // the very object parsed once: nothing parses the environment again
    expect(config()).toBe(settings);
    expect(config().port).toBe(3456);
  });
});
