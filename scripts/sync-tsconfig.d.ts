/** Every folder with a tsconfig.json that `tsc -b` must build, sorted. */
export declare function projectDirs(): string[];
/** The root tsconfig.json text for the current projects. */
export declare function rootTsconfig(): string;
