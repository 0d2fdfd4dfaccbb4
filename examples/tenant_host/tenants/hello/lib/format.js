export const greeting = (salutation, name) => `${salutation}, ${name}!`;
