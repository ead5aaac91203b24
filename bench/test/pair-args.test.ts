import { flagTaker, switchTaker } from '../lib/pair-args';

describe('flagTaker and switchTaker', () => {
  it('take their flags off the command line and leave the positional arguments', () => {
    const argv = ['--minimal', '--requests', '800', 'magic-link', '--mail-on-disk'];
    const flag = flagTaker(argv);
    const isSet = switchTaker(argv);
    expect(isSet('--minimal')).toBe(true);
    expect(flag('--requests')).toBe('800');
    expect(isSet('--mail-on-disk')).toBe(true);
    expect(isSet('--profile')).toBe(false);
    expect(flag('--api-root')).toBeUndefined();
    expect(argv).toEqual(['magic-link']);
  });
});
