import { Chessground } from './chessground.js';
export default Chessground;
//# sourceMappingURL=index.js.map