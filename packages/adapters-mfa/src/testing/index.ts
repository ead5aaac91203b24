export { describeWithOathtool, oathtoolTotp } from './oathtool';
