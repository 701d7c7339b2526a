import { stdioConfig } from '../../vitest.shared.ts';

export default stdioConfig;
