/** axe-core's minified source (`axe.min.js`): evaluated in a page, it defines `window.axe`. */
export declare const axeSource: string;
