// `atob`, `btoa` (the same declarations as lib.dom's: they merge as overloads).
declare function atob(data: string): string;
declare function btoa(data: string): string;
